"""`cluster create --ray-version` live (XPK's `cluster create-ray`, issue 36): the real
container.v1 client against FakeGke creates the cluster with the Ray Operator add-on on, and
the in-cluster steps reach an in-memory Kubernetes API whose RayCluster CRD the add-on serves
(seeded Established, as GKE's add-on would make it). What the live run sends is what the dry
run printed."""

from __future__ import annotations

import json
from typing import Any

from tests.app.cluster_deps import ClusterWorld
from tests.app.test_ssh_use_case import Where
from tests.gateways.kube.test_kube_handlers import seed
from tests.support import adapt_cluster
from tests.support.adapt_cluster import World, world
from tests.support.crd import validate
from tests.support.discovery import check_request
from xcli.app import cluster as use_case
from xcli.plan.gke import ray
from xcli.providers import DEFAULT, Registry
from xcli.providers.gke.bodies import setup_steps
from xcli.providers.gke.provider import GkeProvider

__all__ = ["world"]  # the fixture

WHERE = Where(project="my-proj", zone="us-east5-b")
CRD = f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{ray.CRD}"
RAYCLUSTER = "/apis/ray.io/v1/namespaces/ray/rayclusters/raycluster"
REGISTRY: Registry = DEFAULT.with_target("gke", f"{__name__}:provider")


def provider() -> GkeProvider:
    """adapt_cluster's provider (FakeGke, the in-memory Kubernetes API, the fixture's
    releases) with the in-cluster setup spliced in, as the registry's gke provider has it."""
    made = adapt_cluster.provider()
    return GkeProvider(
        made.container, made.compute, setup=setup_steps, extra_handlers=made.extra_handlers
    )


def create(dry: bool) -> use_case.CreateRequest:
    return use_case.CreateRequest(
        name="ray-demo", provider="gke", tpu_type="v5litepod-8", device_type=None,
        num_slices=4, num_nodes=None, on_demand=True, spot=False, reservation=None,
        flex_start=False, max_run_duration=None, guaranteed=False, min_duration=None,
        where=WHERE, dry_run=dry, yes=True, flags={"ray_version": "2.39.0"},
    )  # fmt: skip


def test_live_create_ray_sends_what_the_dry_run_printed(world: World) -> None:
    dry = ClusterWorld(fake=world.kube)
    use_case.create(create(True), dry.deps(dry=True, registry=REGISTRY))
    printed: dict[str, Any] = dry.printed_steps()
    assert world.gke.requests == [] and world.kube.requests == []  # no credentials needed
    seed(world.kube, CRD, "CRD", "Established", "True")
    live = ClusterWorld(fake=world.kube)
    use_case.create(create(False), live.deps(registry=REGISTRY))
    posts = [(p.split("?")[0], b) for m, p, b in world.gke.requests if m == "POST"]
    (body,) = [b for p, b in posts if p.endswith("/clusters")]
    # the printed body against the discovery document (the live one has the REST transport's
    # integer enums); the add-on's field is in both
    check_request(
        "container.projects.locations.clusters.create", "POST",
        "https://container.googleapis.com/v1/projects/my-proj/locations/us-east5/clusters",
        printed["cluster"]["request"]["body"],
    )  # fmt: skip
    assert body["cluster"]["addonsConfig"]["rayOperatorConfig"] == {"enabled": True}
    sent = [json.loads(r.content) for r in world.kube.patches(dry_run=False)]
    applied = world.kube.objects[RAYCLUSTER]
    manifest = printed["ray-cluster"]["manifest"]
    assert manifest in sent and applied["spec"] == manifest["spec"]
    validate(manifest)
    assert world.kube.objects["/api/v1/namespaces/ray"]["metadata"]["name"] == "ray"


def test_without_the_addons_crd_the_raycluster_waits_and_is_not_applied(world: World) -> None:
    live = ClusterWorld(fake=world.kube)
    try:
        use_case.create(create(False), live.deps(registry=REGISTRY))
    except Exception as error:  # the wait's timeout, as the user sees it
        assert ray.CRD in str(error)
    else:
        raise AssertionError("the RayCluster was applied with no CRD served")
    assert RAYCLUSTER not in world.kube.objects
