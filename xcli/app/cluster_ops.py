"""`xcli cluster adapt` and `xcli cluster preload-image`: what xcli does inside a GKE cluster
that exists already. The cluster's Kubernetes API comes from the provider's ClusterAccess.

`adapt` reads the cluster first on a live run (clusters.get: its accelerator node pools) through
`deps.record`; a dry-run reads nothing and plans for the shape the flags name.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from xcli.app.where import cluster_access, ref_for
from xcli.errors import UserError
from xcli.providers.gke.provider import GkeProvider

if TYPE_CHECKING:
    from xcli.app.deps import Deps, Location
    from xcli.providers.gke.adapt import Detected

GKE = GkeProvider.name  # both operations are the GKE provider's own (providers/gke/)


@dataclass(frozen=True)
class AdaptRequest:
    name: str
    tpu_type: str | None
    device_type: str | None
    num_slices: int | None
    num_nodes: int | None
    spot: bool
    reservation: str | None
    flex_start: bool
    where: Location
    pathways: bool = False  # add Pathways' head pool (if missing) and its Kueue flavor
    pathways_cpu_machine_type: str | None = None


@dataclass(frozen=True)
class PreloadRequest:
    image: str
    cluster: str
    timeout: str  # a duration: 30m
    keep: bool  # keep the DaemonSet, so nodes added later pull too
    where: Location


def adapt(req: AdaptRequest, deps: Deps) -> None:
    """Install JobSet, Kueue, its queues and the metadata on a GKE cluster made another way,
    for the accelerator pools it has; node pools are never touched, except Pathways' head pool,
    added when asked for and missing."""
    from xcli.providers.gke.adapt import observe, plan_adapt, read_handler, spec_for
    from xcli.workload.jobset.plan import gke_cluster_path

    given = _given(req)
    ref = ref_for(deps.registry, req.name, GKE, req.where)
    provider = deps.registry.get(GKE)
    found = deps.record.read(lambda: observe(provider, ref.project, ref.region, req.name))
    if found is None:  # nothing was read (a dry-run): the flags name the shape
        if given is None:
            raise UserError(
                "a dry-run reads nothing from the cluster, so it cannot detect its node pools",
                hint="name their shape: --tpu-type v6e-256 --num-slices 2 [--spot], or "
                "--device-type h100-80gb-8 --num-nodes 4",
            )
        found = given
    elif given is not None and _key(given) != _key(found):
        raise UserError(
            f"cluster {req.name} has {_shape(found)} (pools {', '.join(found.pools)}), not "
            f"{_shape(given)}",
            hint="drop --tpu-type/--device-type and the counts: a live run detects them",
        )
    spec = spec_for(
        found, req.name, ref.project, ref.zone, req.pathways, req.pathways_cpu_machine_type
    )
    path = gke_cluster_path(ref.project, ref.zone, req.name)
    plan = plan_adapt(spec, path, found.pools, found.all_pools)
    access = cluster_access(deps.registry, ref)

    def ask(question: str) -> bool:
        deps.confirm(question)  # --yes answers; without a terminal it says to pass --yes
        return True

    def handlers() -> Mapping[str, Any]:
        # the setup steps run through the GKE provider's handlers, as in `cluster create`;
        # the read step reads the controllers through the provider's ClusterAccess
        adapt_read = read_handler(lambda _cluster: access.kube_api(ref), ask)
        return {**provider.handlers(ref), "gke_adapt_read": adapt_read}

    deps.run_plan(plan, handlers)
    deps.record.created(req.name, GKE)


def preload_image(req: PreloadRequest, deps: Deps) -> None:
    """Pull an image onto every accelerator node through a DaemonSet, then delete it (unless
    `keep`)."""
    from xcli.image import reference
    from xcli.providers.gke.access import kube_handlers
    from xcli.providers.gke.preload import plan_preload
    from xcli.spec import check_duration, check_name
    from xcli.workload.jobset.plan import gke_cluster_path

    check_name(req.cluster, "cluster", 40)
    reference.parse(req.image, what="image")  # the one reference parser (xcli/image/reference.py)
    image = req.image
    seconds = check_duration(req.timeout, "--timeout", 60, 24 * 3600)
    ref = ref_for(deps.registry, req.cluster, GKE, req.where)
    where = gke_cluster_path(ref.project, ref.zone, req.cluster)
    plan = plan_preload(image, req.cluster, where, seconds, req.keep)
    access = cluster_access(deps.registry, ref)
    timing = deps.timing
    deps.run_plan(plan, lambda: kube_handlers(access.kube_api(ref), timing.sleep, timing.clock))


def _key(found: Detected) -> tuple[Any, int, int]:
    return found.accelerator, found.slices, found.nodes


def _shape(found: Detected) -> str:
    count = found.slices if found.accelerator.kind == "tpu" else found.nodes
    return f"{found.accelerator.name} x{count}"


def _given(req: AdaptRequest) -> Detected | None:
    """The shape the flags name (checked before anything is read), or None."""
    from xcli.app.cluster import check_counts
    from xcli.catalog import lookup
    from xcli.providers.gke.adapt import Detected
    from xcli.spec import capacity_from_flags, check_name

    check_name(req.name, "cluster", 40)
    if not (req.tpu_type or req.device_type):
        if req.num_slices or req.num_nodes or req.spot or req.reservation or req.flex_start:
            raise UserError(
                "the counts and capacity describe the shape: name it too",
                hint="add --tpu-type or --device-type",
            )
        return None
    if req.tpu_type and req.device_type:
        raise UserError("pass one of --tpu-type and --device-type", hint="e.g. --tpu-type v6e-256")
    accel = lookup(req.tpu_type or req.device_type or "")
    check_counts(accel, req.tpu_type, req.num_slices, req.num_nodes)
    capacity = capacity_from_flags(
        on_demand=not (req.spot or req.reservation or req.flex_start),
        spot=req.spot,
        reservation=req.reservation,
        flex_start=req.flex_start,
    )
    return Detected(accel, req.num_slices or 1, req.num_nodes or 1, capacity, ())
