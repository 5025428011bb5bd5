"""app/workload.py with injected dependencies: the kind comes from the provider's registry
entry, what a live run reads first comes through the facts reader (live: the cluster; dry:
files and flags), and every use case returns data without printing.

The cluster is the in-memory Kubernetes API of tests/support/workload_cluster.py, reached
through the registry's ClusterAccess, as the CLI reaches it."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
import yaml

from tests.app.test_ssh_use_case import Where, World
from tests.support.workload_cluster import (
    JOBSETS,
    Cluster,
    add_jobset,
    cluster,
    cond,
    set_up,
)
from xcli.app import workload as use
from xcli.app.deps import Deps, Handlers
from xcli.app.workload_facts import LIVE_FACTS, DryFacts
from xcli.errors import UserError
from xcli.gateways.backoff import Timing
from xcli.plan.model import Plan
from xcli.providers import DEFAULT
from xcli.workload.facts import Facts
from xcli.workload.protocol import Lazy, Table
from xcli.workload.request import WorkloadRequest

__all__ = ["cluster"]  # the fixture

WHERE = Where(project="my-proj", zone="us-east5-b")
DONE = [cond("Completed", "True", "AllJobsCompleted", "done", "2026-11-22T11:30:00Z")]


class Seen:
    """What the use cases did through Deps: plans run, questions asked, lines said."""

    def __init__(self, answer: bool = True) -> None:
        self.plans: list[Plan] = []
        self.asked: list[str] = []
        self.said: list[str] = []
        self.answer = answer

    def deps(self, cl: Cluster, facts: Facts) -> Deps:
        def confirm(question: str) -> None:
            self.asked.append(question)
            if not self.answer:
                raise UserError(f"{question} needs confirmation", hint="pass --yes")

        def run_plan(plan: Plan, handlers: Handlers) -> None:
            self.plans.append(plan)

        live = cl.live
        return replace(
            World().deps(Path("logs")),
            registry=DEFAULT.with_cluster_access("gke", cl.access),
            run_plan=run_plan,
            confirm=confirm,
            say=self.said.append,
            timing=Timing(sleep=live.sleep, clock=live.clock, now=live.now),
            facts=facts,
        )


def _request(**changes: object) -> use.CreateRequest:
    request = WorkloadRequest(
        cluster="demo",
        name="train-1",
        command="python3 train.py",
        provider="gke",
        image="repo/img:1",
    )
    return use.CreateRequest(replace(request, **changes), WHERE)  # type: ignore[arg-type]


def test_create_plans_the_same_jobset_live_and_from_the_dry_run_facts(
    cluster: Cluster, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = set_up(cluster.fake)
    meta = tmp_path / "meta.yaml"
    meta.write_text(yaml.safe_dump(config["data"]))
    dry, live = Seen(), Seen()
    created = use.create(_request(), dry.deps(cluster, DryFacts(meta)))
    assert cluster.fake.requests == []  # the dry facts read no cluster
    use.create(_request(), live.deps(cluster, LIVE_FACTS))
    assert cluster.fake.requests[0].url.path.endswith("xcli-cluster-metadata")
    (dry_plan,), (live_plan,) = dry.plans, live.plans
    assert dry_plan.steps == live_plan.steps  # the same JobSet, from either reader
    # only the dry-run says where its facts came from, and what it could not check
    assert dry_plan.notes[: len(live_plan.notes)] == live_plan.notes
    assert dry_plan.notes[-1].startswith("existing workload names were not checked")
    assert created.follow is not None and "xcli workload wait train-1 --cluster demo" in (
        created.follow
    )
    assert capsys.readouterr() == ("", "")  # a use case never prints
    assert cluster.refs[0].provider == "gke"  # the ref names the registry's provider


def test_dry_facts_need_the_accelerator_or_a_metadata_file(cluster: Cluster) -> None:
    with pytest.raises(UserError, match="a dry-run without a cluster needs the accelerator"):
        use.create(_request(), Seen().deps(cluster, DryFacts()))
    gpu = Seen()  # --num-nodes defaults to 1, as XPK's does
    use.create(_request(device_type="h100-80gb-8"), gpu.deps(cluster, DryFacts()))
    assert len(gpu.plans) == 1  # planned, where it used to refuse
    one = Seen()  # --num-slices defaults to 1, as XPK's does
    use.create(_request(tpu_type="v6e-256"), one.deps(cluster, DryFacts()))
    assert "1 slice(s)" in " ".join(one.plans[0].notes)
    seen = Seen()
    use.create(_request(tpu_type="v6e-256", num_slices=2), seen.deps(cluster, DryFacts()))
    assert cluster.fake.requests == [] and len(seen.plans) == 1


def test_delete_names_the_state_live_and_reads_nothing_on_a_dry_run(cluster: Cluster) -> None:
    set_up(cluster.fake)
    add_jobset(cluster.fake, "v5litepod-16-x1", "old", DONE)
    target = use.Target("demo", "gke", WHERE)
    request = use.DeleteRequest(target, "old", None, None, preview=False)
    refused = Seen(answer=False)
    with pytest.raises(UserError):
        use.delete(request, refused.deps(cluster, LIVE_FACTS))
    assert refused.asked == ["Delete workload old (succeeded) on cluster demo?"]
    assert refused.plans == []  # a "no" runs nothing
    cluster.fake.requests.clear()
    dry = Seen()
    use.delete(replace(request, preview=True), dry.deps(cluster, DryFacts()))
    assert dry.asked == ["Delete workload old on cluster demo?"]
    assert cluster.fake.requests == []  # the dry facts name no state: nothing read
    (plan,) = dry.plans
    assert [s.id for s in plan.steps] == [
        "delete-old"
    ] and plan.title == "delete old on cluster demo"


def test_list_and_status_return_data_for_one_renderer(cluster: Cluster) -> None:
    set_up(cluster.fake)
    add_jobset(cluster.fake, "v5litepod-16-x1", "old", DONE)
    target = use.Target("demo", "gke", WHERE)
    found = use.list_workloads(target, None, Seen().deps(cluster, LIVE_FACTS))
    assert [r["name"] for r in found.records] == ["old"]
    assert found.table.headers[0] == "NAME" and found.table.rows[0][0] == "old"
    assert found.empty == "no workloads on cluster demo"
    report = use.status(target, "old", Seen().deps(cluster, LIVE_FACTS))
    assert report.data["name"] == "old" and report.data["state"] == "succeeded"
    reads = len(cluster.fake.requests)
    lazy = [b for b in report.text if isinstance(b, Lazy)]
    assert len(lazy) == 2 and len(cluster.fake.requests) == reads  # not read until shown
    assert lazy[0].make().startswith("goodput")
    assert lazy[1].make() == ""  # the straggler line: no arrival marks, no line
    assert report.text[-1] == "workers: no pods yet"  # no pods were added
    assert not any(isinstance(b, Table) for b in report.text)
    assert f"{JOBSETS}/old" in {r.url.path for r in cluster.fake.requests}


def test_the_provider_registry_picks_the_kind_and_its_rules(cluster: Cluster) -> None:
    deps = Seen().deps(cluster, LIVE_FACTS)
    assert use.kind_entry(deps, "gke").states == ("queued", "running", "succeeded", "failed")
    assert not use.kind_entry(deps, "local").namespaces
    with pytest.raises(UserError, match="--state lost does not occur on --provider gke"):
        use.list_workloads(use.Target("demo", "gke", WHERE), "lost", deps)
    with pytest.raises(UserError, match="which have no Kubernetes namespace"):
        use.status(use.Target("demo", "local", WHERE, "team-a"), "w", deps)
    with pytest.raises(UserError, match="is not a Kubernetes namespace name"):
        use.status(use.Target("demo", "gke", WHERE, "Team_A"), "w", deps)
    preview = use.DeleteRequest(use.Target("demo", "local", WHERE), "w", None, None, True)
    with pytest.raises(UserError, match="--dry-run of a local workload delete"):
        use.delete(preview, deps)
    assert cluster.fake.requests == []  # every refusal comes before any read
