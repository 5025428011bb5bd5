"""`xcli cluster adapt` of a recorded foreign cluster: the real container.v1 client (REST,
against FakeGke through `responses`) reads it, the in-cluster setup goes to an in-memory
Kubernetes API, and what the live run applies is what the dry-run printed."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from tests.conftest import REPO
from tests.gateways.test_kube_handlers import FIXTURE, Clock, seed
from tests.plan.test_incluster import CASES as CLUSTERS
from tests.providers.gke.test_adapt import cluster_json
from tests.support.cluster_access import registry_over
from tests.support.crd import validate
from tests.support.discovery import check_request
from tests.support.fake_gke import FakeGke
from tests.support.fakekube import FakeKube
from tests.support.gke_live import live
from xcli.cli.deps import Dependencies
from xcli.cli.errors import run_guarded
from xcli.cli.main import cli
from xcli.gateways.kube import KubeApi
from xcli.gateways.kube_handlers import KubeHandlers
from xcli.plan import incluster, kueue_objects
from xcli.plan.model import resolve
from xcli.providers import DEFAULT
from xcli.providers.gke.provider import GkeProvider
from xcli.workload.team import objects as team_objects
from xcli.workload.team.spec import TeamSpec, parse_quotas

GOLDENS = REPO / "tests" / "goldens" / "adapt"
KEY = "projects/my-proj/locations/us-east5/clusters/tk-v6e"
WHERE = ["--project", "my-proj", "--zone", "us-east5-b"]
ADAPT = ["cluster", "adapt", "--cluster", "tk-v6e", *WHERE]
KUEUE = "/apis/apps/v1/namespaces/kueue-system/deployments/kueue-controller-manager"


@dataclass
class World:
    gke: FakeGke
    kube: FakeKube
    fetched: list[str]


CURRENT: dict[str, Any] = {}


def provider() -> GkeProvider:
    """The registry's GKE provider in these tests: real client to FakeGke, Kubernetes steps to
    the in-memory API, releases from the test fixture (renamed per component)."""
    world: World = CURRENT["world"]
    made: GkeProvider = CURRENT["provider"]

    def fetch(url: str) -> str:
        world.fetched.append(url)
        component = url.split("/")[4]
        return (
            FIXTURE.read_text()
            .replace("gadget", component)
            .replace("Gadget", component.capitalize())
        )

    clock = Clock()
    kube = KubeHandlers(
        lambda _cluster: api(world.kube), fetch=fetch, sleep=clock.sleep, clock=clock
    )
    return GkeProvider(made.container, made.compute, extra_handlers=kube.handlers())


def api(fake: FakeKube) -> KubeApi:
    return KubeApi("203.0.113.9", None, lambda: "tok", transport=fake.transport())


@pytest.fixture
def world() -> Iterator[World]:
    gke, kube = FakeGke(), FakeKube(auto_ready=True)
    data = cluster_json("foreign-v6e-cluster")
    gke.clusters[KEY] = {
        **{k: v for k, v in data.items() if k != "nodePools"},
        "_key": KEY,
        "_system": data["nodePools"],
    }
    for name in incluster.CRDS:
        crd = f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{name}"
        seed(kube, crd, "CRD", "Established", "True")
    made = World(gke, kube, [])
    with live(gke) as env:
        CURRENT.update(world=made, provider=env.provider)
        yield made
    CURRENT.clear()


def run(args: list[str], capsys: pytest.CaptureFixture[str], world: World) -> tuple[int, str, str]:
    providers, _ = registry_over(world.kube, DEFAULT.with_target("gke", f"{__name__}:provider"))
    deps = Dependencies(providers=providers)
    code = run_guarded(cli, args, debug=False, obj=deps)
    out, err = capsys.readouterr()
    return code, out, err


def installed(world: World, version: str) -> None:
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "kueue-controller-manager", "namespace": "kueue-system"},
        "spec": {
            "template": {
                "spec": {
                    "containers": [
                        {"name": "manager", "image": f"registry.k8s.io/kueue/kueue:{version}"}
                    ]
                }
            }
        },
        "status": {"conditions": [{"type": "Available", "status": "True"}]},
    }
    world.kube.put(KUEUE, deployment)


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_golden_adapt_dry_run(
    fmt: str, world: World, capsys: pytest.CaptureFixture[str], update_goldens: bool
) -> None:
    shape = ["--tpu-type", "v6e-256", "--num-slices", "2", "--spot"]
    code, out, err = run([*ADAPT, *shape, "--dry-run", "-o", fmt], capsys, world)
    assert code == 0, err
    assert world.gke.requests == [] and world.kube.requests == []  # no credentials needed
    path = GOLDENS / f"v6e-256-x2-spot.{'json' if fmt == 'json' else 'txt'}"
    if update_goldens:
        path.write_text(out, encoding="utf-8")
    assert out == path.read_text(encoding="utf-8"), f"{path.name} changed"


def test_live_adapt_detects_the_pools_and_applies_the_dry_run_setup(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    shape = ["--tpu-type", "v6e-256", "--num-slices", "2", "--spot"]
    code, out, err = run([*ADAPT, *shape, "--dry-run", "-o", "json"], capsys, world)
    assert code == 0, err
    printed = json.loads(out)["plan"]
    installed(world, "v0.17.1")  # an older Kueue, across no breaking change: no question
    code, out, err = run([*ADAPT, "-o", "json"], capsys, world)
    assert code == 0, err
    # one read of the cluster, by the real client, as the container.v1 API defines it
    assert [(m, p.split("?")[0]) for m, p, _ in world.gke.requests] == [("GET", f"/v1/{KEY}")]
    for method, path, body in world.gke.requests:
        # the REST transport's own `$alt` system parameter aside (tests/gateways/test_gke_live.py)
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
    assert "kueue: v0.17.1 -> v0.19.2 (upgrade)" in err


def test_a_breaking_upgrade_is_asked_first(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    installed(world, "v0.14.3")
    code, _, err = run(ADAPT, capsys, world)
    assert code == 1 and "needs confirmation" in err and "v1beta2" in err, err
    assert world.kube.patches(dry_run=False) == []  # nothing installed before the answer
    code, _, err = run([*ADAPT, "--yes"], capsys, world)
    assert code == 0, err


def test_a_newer_install_is_never_downgraded(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    installed(world, "v0.20.0")
    code, _, err = run([*ADAPT, "--yes"], capsys, world)
    assert code == 1 and "kueue v0.20.0 is installed, newer than the v0.19.2" in err
    assert world.kube.patches(dry_run=False) == []


def test_live_flags_must_match_the_cluster(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run([*ADAPT, "--tpu-type", "v6e-256", "--num-slices", "3"], capsys, world)
    assert code == 1 and "has v6e-256 x2 (pools v6e-a, v6e-b), not v6e-256 x3" in err


OWN_QUEUE = "/apis/kueue.x-k8s.io/v1beta2/clusterqueues/xcli-cluster-queue"
TEAM_QUEUE = "/apis/kueue.x-k8s.io/v1beta2/clusterqueues/xcli-team-research"


def quota(queue: dict[str, Any], flavor: str = "v6e-256") -> Any:
    (group,) = queue["spec"]["resourceGroups"]
    (found,) = [f for f in group["flavors"] if f["name"] == flavor]
    return next(r["nominalQuota"] for r in found["resources"] if r["name"] == "google.com/tpu")


def team_queue(chips: int) -> dict[str, Any]:
    """Team research's ClusterQueue as `xcli team create --quota v6e=<chips>` applied it."""
    spec = TeamSpec("tk-v6e", "research", parse_quotas(f"v6e={chips}", None, None))
    queue = resolve(
        team_objects.cluster_queue(spec, "team-read"), {"team-read": {"flavor_0": "v6e-256"}}
    )
    validate(queue)
    return dict(queue)


def test_adapt_again_keeps_the_teams_chips_out_of_the_cluster_queue(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    """A cluster xcli set up, where team research then took 192 of the 512 chips."""
    installed(world, "v0.19.2")
    world.kube.put(TEAM_QUEUE, team_queue(192))
    own = json.loads(json.dumps(dict(kueue_objects.cluster_queue(CLUSTERS["v6e-256 x2 spot"]))))
    own["spec"]["resourceGroups"][0]["flavors"][0]["resources"][0]["nominalQuota"] = 320
    world.kube.put(OWN_QUEUE, own)
    code, out, err = run([*ADAPT, "--yes", "-o", "json"], capsys, world)
    assert code == 0, err
    assert quota(world.kube.objects[OWN_QUEUE]) == 320  # not back to 512
    assert quota(world.kube.objects[TEAM_QUEUE]) == 192
    outputs = {s["id"]: s["outputs"] for s in json.loads(out)["steps"]}
    assert outputs["k8s-cohort-read"] == {"chips": 320, "teams": {"research": 192}}
    assert "teams hold research 192 chips; the cluster's queue keeps 320" in err


def test_adapt_refuses_when_teams_hold_more_than_the_cluster(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    world.kube.put(TEAM_QUEUE, team_queue(600))
    code, _, err = run([*ADAPT, "--yes"], capsys, world)
    assert code == 1, err
    assert "the teams hold 600 google.com/tpu chips of v6e-256 (research 600)" in err
    assert "more than the cluster's 512" in err and "hint: lower a team's quota" in err
    assert OWN_QUEUE not in world.kube.objects  # the cluster queue is not applied
