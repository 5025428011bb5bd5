"""`workload profile` on GKE (app/workload_profile.py): the JobSet's pods from the in-memory
Kubernetes API, the capture through one pods/exec WebSocket to a loopback server speaking the
kubelet's exec protocol. The dry-run reads no cluster (app/record.py's DRY): it prints the pods'
list the live run sends, then the exec with the pod, its container, the endpoints and the file
names as refs to that read; the live requests are the dry-run's with those refs filled in. A
host the capture's log names as unreachable is named in the result, the others have files."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from tests.app.test_ssh_use_case import Where, World
from tests.app.test_workload_connect import _deps
from tests.gateways.kube.exec_server import ExecServer, exec_server
from tests.support.workload_cluster import NS, Cluster, cluster
from xcli.app import workload_profile as use
from xcli.app.record import DRY, LIVE
from xcli.app.workload import Target
from xcli.errors import UserError
from xcli.gateways.backoff import Timing
from xcli.plan.profile import TRACE_SCRIPT, HostChoice, parse_hosts

__all__ = ["cluster", "exec_server"]

WHERE = Where(project="my-proj", zone="us-east5-b")
NOW = datetime(2026, 12, 1, 9, 30, 5, tzinfo=timezone.utc)


def _pods(cl: Cluster, slices: int = 2, workers: int = 2) -> None:
    for s in range(slices):
        for w in range(workers):
            name = f"train-slice-job-{s}-{w}-abcde"
            cl.fake.put(f"{NS}/pods/{name}", {
                "apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": name, "namespace": "default", "labels": {
                    "jobset.sigs.k8s.io/jobset-name": "train",
                    "jobset.sigs.k8s.io/job-index": str(s),
                    "batch.kubernetes.io/job-completion-index": str(w),
                }},
                "spec": {"containers": [{"name": "jax-tpu"}]},
                "status": {"phase": "Running", "podIP": f"10.8.{s}.{w + 10}"},
            })  # fmt: skip


def _request(hosts: HostChoice | None = None, log_dir: str = "gs://b/prof") -> use.ProfileRequest:
    return use.ProfileRequest(
        Target("demo", "gke", WHERE), "train", hosts or parse_hosts("all"), 1500, 9999,
        log_dir, None,
    )  # fmt: skip


def _with(cl: Cluster, server: str, world: World | None = None) -> Any:
    """Live, or with `world` (a dry one) as the CLI's --dry-run: DRY reads nothing."""
    deps = replace(_deps(cl, server), record=LIVE)
    if world is not None:
        deps = replace(deps, run_quiet=world.deps(Path("logs")).run_quiet, record=DRY)
    return replace(deps, timing=Timing(sleep=deps.timing.sleep, clock=deps.timing.clock,
                                       now=lambda: NOW))  # fmt: skip


def test_live_exec_is_the_dry_runs_and_names_the_host_that_did_not_answer(
    cluster: Cluster, exec_server: tuple[str, ExecServer]
) -> None:
    server, fake = exec_server
    _pods(cluster)
    dry = World(dry=True)
    assert use.profile(_request(), _with(cluster, server, dry)) is None
    read, step = json.loads(dry.printed.getvalue())["plan"]
    assert fake.requests == [] and cluster.fake.requests == []  # the dry-run read nothing
    assert cluster.refs == []  # nor asked for the cluster (clusters.get, credentials)
    assert read["kind"] == "read_first" and step["after"] == ["pods"]
    assert (read["object_kind"], read["namespace"]) == ("Pod", "default")
    assert read["cluster"] == "projects/my-proj/locations/us-east5/clusters/demo"
    assert step["hosts"] == "${pods.hosts}" and step["profiler_port"] == 9999
    assert step["trace"]["service_addr"] == "${pods.endpoints}"
    assert step["session_dir"] == "gs://b/prof/plugins/profile/2026_12_01_09_30_05"

    seen: list[list[str]] = []

    def pod(name: str, argv: list[str]) -> tuple[int, bytes, bytes]:
        seen.append(argv)
        log = (
            "W0000 capture_profile.cc:181] 10.8.1.10:9999 returned UNAVAILABLE: failed to "
            "connect to all addresses\n"
        )
        return 0, b"", log.encode()

    fake.answer = pod
    result = use.profile(_request(), _with(cluster, server))
    assert result is not None
    (listed,) = [r.url for r in cluster.fake.requests if r.url.path.endswith("/pods")]
    assert listed.path == "/api/v1/namespaces/default/pods"  # the list the dry-run named
    assert listed.params["labelSelector"] == ",".join(f"{k}={v}" for k, v in read["labels"].items())
    exec_ = step["exec"]
    (path,) = fake.requests
    endpoints = "10.8.0.10:9999,10.8.0.11:9999,10.8.1.10:9999,10.8.1.11:9999"
    filled = {
        "${pods.pod}": "train-slice-job-0-0-abcde",
        "${pods.container}": "jax-tpu",
        "${pods.endpoints}": endpoints,
        "${pods.names}": "s0-w0,s0-w1,s1-w0,s1-w1",
    }
    want_path, want_argv = exec_["path"], list(exec_["command"])
    for ref, value in filled.items():  # what the live run fills in, quoted in the path
        want_path = want_path.replace(ref, quote(value, safe=""))
        want_argv = [a.replace(ref, value) for a in want_argv]
    assert path == want_path  # the path the dry-run printed, its refs filled in
    assert seen == [want_argv]  # the argv too, element for element
    argv = seen[0]
    assert argv[:3] == ["python3", "-c", TRACE_SCRIPT]
    trace = json.loads(argv[3])
    assert trace["service_addr"] == "10.8.0.10:9999,10.8.0.11:9999,10.8.1.10:9999,10.8.1.11:9999"
    assert trace["options"]["override_hostnames"] == "s0-w0,s0-w1,s1-w0,s1-w1"
    assert result.missing == {"s1/w0": "UNAVAILABLE: failed to connect to all addresses"}
    assert sorted(result.files) == ["s0/w0", "s0/w1", "s1/w1"]
    assert result.files["s0/w1"].endswith("/2026_12_01_09_30_05/s0-w1.xplane.pb")


def test_a_pod_image_without_xprof_is_named_for_every_host(
    cluster: Cluster, exec_server: tuple[str, ExecServer]
) -> None:
    server, fake = exec_server
    _pods(cluster, 1, 2)
    fake.answer = lambda pod, argv: (1, b"", b"ModuleNotFoundError: No module named 'xprof'\n")
    result = use.profile(_request(parse_hosts("s0/w1")), _with(cluster, server))
    assert result is not None and result.files == {}
    assert "xprof is not installed in pod train-slice-job-0-0-abcde" in result.missing["s0/w1"]


def test_gke_needs_a_bucket_and_hosts_it_has(
    cluster: Cluster, exec_server: tuple[str, ExecServer]
) -> None:
    server, _ = exec_server
    _pods(cluster, 1, 2)
    with pytest.raises(UserError, match="--log-dir must be gs://"):
        use.profile(_request(log_dir="prof"), _with(cluster, server))
    with pytest.raises(UserError, match="--hosts s3/w0 is not a host of this workload"):
        use.profile(_request(parse_hosts("s3/w0")), _with(cluster, server))
    with pytest.raises(UserError, match="the straggler verdict of train has no step to judge"):
        use.profile(_request(parse_hosts("stragglers")), _with(cluster, server))  # no marks


def test_stragglers_are_the_verdicts_hosts_plus_two_healthy_ones(
    cluster: Cluster, exec_server: tuple[str, ExecServer]
) -> None:
    """The marks of a real run (8 CPU-JAX workers, s1/w2 delayed 150 ms a step) as the pods'
    logs: the dry-run holds every pod as a candidate and says the verdict picks at run time;
    the live exec traces s1/w2 and the first two healthy hosts, and the result says which."""
    from tests.workload.stragglers.pods import log_of, pod_for
    from xcli.workload.stragglers.marks import from_runner_lines

    server, fake = exec_server
    run = Path(__file__).parents[1] / "workload" / "stragglers" / "data" / "slow-run.jsonl"
    for n, marks in enumerate(from_runner_lines(run.read_text().splitlines()).workers):
        pod = pod_for("train", marks.worker, f"node-{n}")
        pod["status"]["podIP"] = f"10.9.0.{n + 10}"
        cluster.fake.put(f"{NS}/pods/{pod['metadata']['name']}", pod)
        cluster.fake.logs[pod["metadata"]["name"]] = log_of(marks)
    dry = World(dry=True)
    request = _request(parse_hosts("stragglers"))
    assert use.profile(request, _with(cluster, server, dry)) is None
    _, step = json.loads(dry.printed.getvalue())["plan"]
    assert step["hosts"] == "${pods.hosts}" and "read when the capture runs" in step["hosts_from"]
    seen: list[list[str]] = []

    def pod_answer(name: str, argv: list[str]) -> tuple[int, bytes, bytes]:
        seen.append(argv)
        return 0, b"", b""

    fake.answer = pod_answer
    result = use.profile(request, _with(cluster, server))
    assert result is not None and sorted(result.files) == ["s0/w0", "s0/w1", "s1/w2"]
    (argv,) = seen
    trace = json.loads(argv[3])
    assert trace["options"]["override_hostnames"] == "s0-w0,s0-w1,s1-w2"
    assert result.chosen is not None
    assert (result.chosen["stragglers"], result.chosen["healthy"]) == (
        ["s1/w2"],
        ["s0/w0", "s0/w1"],
    )
    assert result.chosen["note"].startswith("stragglers: s1/w2 (chronic); for comparison")
    assert result.to_json()["hosts_from_verdict"]["stragglers"] == ["s1/w2"]


def test_stacks_one_exec_per_pod_grouped_and_bounded(
    cluster: Cluster, exec_server: tuple[str, ExecServer]
) -> None:
    """workload stacks on GKE: each pod's py-spy dump through its own exec stream, the paths
    the dry-run printed, two groups with the stuck pod named."""
    from xcli.app import workload_stacks as stacks

    server, fake = exec_server
    _pods(cluster, 4, 4)
    request = stacks.StacksRequest(Target("demo", "gke", WHERE), "train")
    dry = World(dry=True)
    assert stacks.stacks(request, _with(cluster, server, dry)) is None
    read, step = json.loads(dry.printed.getvalue())["plan"]
    assert fake.requests == [] and cluster.fake.requests == [] and cluster.refs == []
    assert read["id"] == "pods" and step["pods"] == "${pods.hosts}"
    assert step["streams_at_once"] == 64

    def pod(name: str, argv: list[str]) -> tuple[int, bytes, bytes]:
        assert argv == step["command"]
        frame = (
            "next_batch (data.py:41)"
            if name.startswith("train-slice-job-2-1-")
            else ("psum_wait (jax.py:9)")
        )
        dump = f'Process 1: python3 train.py\nThread 1 (idle): "MainThread"\n    {frame}\n'
        return 0, dump.encode(), b""

    fake.answer = pod
    report = stacks.stacks(request, _with(cluster, server))
    assert report is not None
    names = [f"train-slice-job-{s}-{w}-abcde" for s in range(4) for w in range(4)]
    template = step["path"]
    assert sorted(fake.requests) == sorted(
        template.replace("{pod}", n).replace("{container}", "jax-tpu") for n in names
    )  # the printed path, filled in for every running pod
    assert report.lines() == [
        "15 hosts in psum_wait (jax.py:9)",
        "1 host in next_batch (data.py:41): s2/w1",
    ]
