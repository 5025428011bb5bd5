"""app/cluster_ops.py: `cluster adapt` of a recorded foreign cluster (the real container.v1
client against FakeGke; the setup applied in an in-memory Kubernetes API reached through the
registry's ClusterAccess) and `cluster preload-image` (a DaemonSet whose status a fake
controller advances at every poll of a fake clock). Rendering: tests/cli/test_cluster_adapt.py
and tests/cli/test_cluster_preload.py."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest

from tests.app.cluster_deps import ClusterWorld
from tests.app.test_ssh_use_case import Where
from tests.plan.test_incluster import CASES as CLUSTERS
from tests.support.adapt_cluster import (
    KEY,
    OWN_QUEUE,
    REGISTRY,
    TEAM_QUEUE,
    World,
    installed,
    quota,
    team_queue,
    world,
)
from tests.support.crd import validate
from tests.support.daemonset import IMAGE, PATH, controller
from tests.support.discovery import check_request
from xcli import cluster_index
from xcli.app import cluster_ops
from xcli.app.deps import Deps
from xcli.errors import CloudError, UserError
from xcli.gateways.backoff import Timing
from xcli.plan.gke import kueue_objects

__all__ = ["world"]  # the fixture

WHERE = Where(project="my-proj", zone="us-east5-b")


def adapt(**shape: Any) -> cluster_ops.AdaptRequest:
    given: dict[str, Any] = {
        "tpu_type": None, "device_type": None, "num_slices": None, "num_nodes": None,
        "spot": False, "reservation": None, "flex_start": False,
    }  # fmt: skip
    given.update(shape)
    return cluster_ops.AdaptRequest("tk-v6e", **given, where=WHERE)


V6E_X2 = {"tpu_type": "v6e-256", "num_slices": 2, "spot": True}


def on(world: World, **kwargs: Any) -> tuple[ClusterWorld, Deps]:
    cluster = ClusterWorld(fake=world.kube)
    return cluster, cluster.deps(registry=REGISTRY, **kwargs)


def test_a_dry_run_reads_nothing_and_needs_the_shape(world: World) -> None:
    _, deps = on(world, dry=True)
    cluster_ops.adapt(adapt(**V6E_X2), deps)
    assert world.gke.requests == [] and world.kube.requests == []  # no credentials needed
    assert cluster_index.providers_of("tk-v6e") == []  # a dry-run records nothing
    with pytest.raises(UserError, match="cannot detect its node pools"):
        cluster_ops.adapt(adapt(), deps)


def test_live_adapt_detects_the_pools_and_applies_the_dry_run_setup(world: World) -> None:
    cluster, deps = on(world, dry=True)
    cluster_ops.adapt(adapt(**V6E_X2), deps)
    printed = list(cluster.printed_steps().values())
    installed(world, "v0.17.1")  # an older Kueue, across no breaking change: no question
    cluster, deps = on(world)
    cluster_ops.adapt(adapt(), deps)
    assert cluster.asked == []
    # one read of the cluster, by the real client, as the container.v1 API defines it
    assert [(m, p.split("?")[0]) for m, p, _ in world.gke.requests] == [("GET", f"/v1/{KEY}")]
    for method, path, body in world.gke.requests:
        # the REST transport's own `$alt` system parameter aside
        # (tests/gateways/google/test_gke_live.py)
        url = "https://container.googleapis.com" + path.split("?")[0]
        check_request("container.projects.locations.clusters.get", method, url, body)
    assert not [r for r in world.gke.requests if r[0] != "GET"]  # node pools untouched
    sent = [json.loads(r.content) for r in world.kube.patches(dry_run=False)]
    # the cluster queue's chips: what the cohort read found (no team: all 512)
    assert quota(world.kube.objects[OWN_QUEUE]) == 512
    manifests = [
        json.loads(json.dumps(s["manifest"]).replace('"${k8s-cohort-read.chips}"', "512"))
        for s in printed
        if s["kind"] == "k8s_apply"
    ]
    for manifest in manifests:
        assert manifest in sent
        if manifest["apiVersion"].startswith("kueue.x-k8s.io"):
            validate(manifest)
    assert sent[-1]["kind"] == "ConfigMap" and sent[-1]["data"]["accelerator"] == "v6e-256"
    assert sorted(world.fetched) == sorted(s["url"] for s in printed if s["kind"] == "k8s_install")
    assert any("kueue: v0.17.1 -> v0.19.2 (upgrade)" in line for line in cluster.progress.lines)
    assert cluster_index.providers_of("tk-v6e") == ["gke"]  # recorded after a live run


def test_a_breaking_upgrade_is_asked_first(world: World) -> None:
    installed(world, "v0.14.3")
    cluster, deps = on(world, answer=False)
    with pytest.raises(UserError, match="needs confirmation") as err:
        cluster_ops.adapt(adapt(), deps)
    assert "v1beta2" in err.value.message
    assert world.kube.patches(dry_run=False) == []  # nothing installed before the answer
    cluster, deps = on(world)
    cluster_ops.adapt(adapt(), deps)
    assert len(cluster.asked) == 1 and "breaking change" in cluster.asked[0]


def test_a_newer_install_is_never_downgraded(world: World) -> None:
    installed(world, "v0.20.0")
    with pytest.raises(UserError, match=r"kueue v0\.20\.0 is installed, newer than the v0\.19\.2"):
        cluster_ops.adapt(adapt(), on(world)[1])
    assert world.kube.patches(dry_run=False) == []


def test_live_flags_must_match_the_cluster(world: World) -> None:
    with pytest.raises(UserError, match=r"has v6e-256 x2 \(pools v6e-a, v6e-b\), not v6e-256 x3"):
        cluster_ops.adapt(adapt(tpu_type="v6e-256", num_slices=3), on(world)[1])
    assert world.kube.requests == []


def test_adapt_again_keeps_the_teams_chips_out_of_the_cluster_queue(world: World) -> None:
    """A cluster xcli set up, where team research then took 192 of the 512 chips."""
    installed(world, "v0.19.2")
    world.kube.put(TEAM_QUEUE, team_queue(192))
    own = json.loads(json.dumps(dict(kueue_objects.cluster_queue(CLUSTERS["v6e-256 x2 spot"]))))
    own["spec"]["resourceGroups"][0]["flavors"][0]["resources"][0]["nominalQuota"] = 320
    world.kube.put(OWN_QUEUE, own)
    cluster, deps = on(world)
    cluster_ops.adapt(adapt(), deps)
    assert quota(world.kube.objects[OWN_QUEUE]) == 320  # not back to 512
    assert quota(world.kube.objects[TEAM_QUEUE]) == 192
    outputs = cluster.results[-1].outputs()
    assert outputs["k8s-cohort-read"] == {"chips": 320, "teams": {"research": 192}}
    lines = cluster.progress.lines
    assert any("teams hold research 192 chips; the cluster's queue keeps 320" in x for x in lines)


def test_adapt_refuses_when_teams_hold_more_than_the_cluster(world: World) -> None:
    world.kube.put(TEAM_QUEUE, team_queue(600))
    with pytest.raises(UserError) as err:
        cluster_ops.adapt(adapt(), on(world)[1])
    assert "the teams hold 600 google.com/tpu chips of v6e-256 (research 600)" in err.value.message
    assert "more than the cluster's 512" in err.value.message
    assert err.value.hint.startswith("lower a team's quota")
    assert OWN_QUEUE not in world.kube.objects  # the cluster queue is not applied


# --- preload-image ---------------------------------------------------------------------------


def preload(**changes: Any) -> cluster_ops.PreloadRequest:
    return replace(cluster_ops.PreloadRequest(IMAGE, "demo", "30m", False, WHERE), **changes)


def preloading(counts: list[tuple[int, int]], **kwargs: Any) -> tuple[ClusterWorld, Deps]:
    """Deps whose sleep also lets the DaemonSet controller take one step (`counts`: the
    ready/desired numbers it writes, one pair per poll)."""
    cluster = ClusterWorld()
    deps = cluster.deps(**kwargs)
    advance = controller(cluster.fake, counts)
    sleep = deps.timing.sleep

    def step(seconds: float, cancelled: Any) -> None:
        sleep(seconds, cancelled)
        advance()

    return cluster, replace(deps, timing=Timing(sleep=step, clock=deps.timing.clock))


def test_preload_shows_progress_then_deletes_the_daemonset() -> None:
    cluster, deps = preloading([], dry=True)
    cluster_ops.preload_image(preload(), deps)
    plan = list(cluster.printed_steps().values())
    assert [s["kind"] for s in plan] == ["k8s_apply", "k8s_rollout", "k8s_delete"]
    assert cluster.fake.requests == []

    live, deps = preloading([(0, 3), (2, 3), (3, 3)])
    cluster_ops.preload_image(preload(), deps)
    (patch,) = live.fake.patches()
    assert patch.url.path == PATH
    assert json.loads(patch.content) == plan[0]["manifest"]
    assert [r.url.path for r in live.fake.requests if r.method == "DELETE"] == [PATH]
    assert PATH not in live.fake.objects
    assert any("2/3 node(s) have the image" in line for line in live.progress.lines)


def test_keep_leaves_the_daemonset() -> None:
    cluster, deps = preloading([(1, 1)])
    cluster_ops.preload_image(preload(keep=True), deps)
    assert PATH in cluster.fake.objects
    assert not [r for r in cluster.fake.requests if r.method == "DELETE"]


def test_a_node_that_never_pulls_times_out() -> None:
    cluster, deps = preloading([(2, 3)])
    with pytest.raises(CloudError, match="not ready on every node after"):
        cluster_ops.preload_image(preload(timeout="1m"), deps)
    assert any("2/3 node(s) have the image" in line for line in cluster.progress.lines)
    assert not [r for r in cluster.fake.requests if r.method == "DELETE"]


@pytest.mark.parametrize(
    ("changes", "message"),
    [({"timeout": "10s"}, "--timeout"), ({"cluster": "Bad_Name"}, "cluster"),
     ({"image": "two words"}, "invalid image reference")],
)  # fmt: skip
def test_bad_input_is_refused_before_anything(changes: dict[str, Any], message: str) -> None:
    cluster = ClusterWorld()
    with pytest.raises(UserError, match=message) as err:
        cluster_ops.preload_image(preload(**changes), cluster.deps())
    assert err.value.hint
    assert cluster.plans == [] and cluster.fake.requests == []
