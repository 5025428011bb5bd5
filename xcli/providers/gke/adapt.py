"""`xcli cluster adapt`: bring a GKE cluster made some other way (gcloud, Terraform, Cluster
Toolkit, XPK) under xcli, without touching its node pools.

Detection is pure (`detect`): from the cluster as clusters.get returns it (container.v1
Cluster), the accelerator node pools: TPU slices by machine type and `placementPolicy.
tpuTopology` (or node count, for slices placed by a workload policy), GPU pools by
`config.accelerators`. One accelerator shape per cluster, as `cluster create` makes them.

The plan (`plan_adapt`) is the in-cluster setup of `cluster create` (plan/gke/incluster.py:
JobSet, Kueue, flavors, queues, priorities, the metadata ConfigMap), after one `gke_adapt_read`
step. That step reads the JobSet and Kueue controllers already installed (their image tags):
it refuses to replace a newer release with xcli's older one, and asks before an upgrade across a
breaking API change (plan/gke/versions.py BREAKING_BELOW; XPK issue #296 is what happens without:
https://github.com/AI-Hypercomputer/xpk/issues/296).

A live run reads the cluster first and plans for what it found; a dry-run reads nothing, so the
shape comes from flags (docs/teams.md, "Bring your own cluster").
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from xcli.catalog import Accelerator, all_names, lookup
from xcli.errors import UserError
from xcli.gateways.kube.api import KubeApi
from xcli.plan.contract import Handler, StepContext
from xcli.plan.gke.incluster import CONTROLLERS, JOBSET_VERSION, KUEUE_VERSION
from xcli.plan.gke.versions import BREAKING_BELOW, upgrade_kind
from xcli.plan.model import Plan, Step
from xcli.plan.steps import Text
from xcli.providers.gke import pathways
from xcli.providers.gke.bodies import setup_steps
from xcli.providers.gke.provider import pool_capacity, pool_nodes
from xcli.spec import Capacity, ClusterSpec

READ = "adapt-read"
TARGETS = {"jobset": JOBSET_VERSION, "kueue": KUEUE_VERSION}


@dataclass(frozen=True)
class Detected:
    accelerator: Accelerator
    slices: int  # TPU node pools of that shape (GPU: 1)
    nodes: int  # GPU nodes (TPU: 1)
    capacity: Capacity
    pools: tuple[str, ...]
    all_pools: tuple[str, ...] = ()  # every pool of the cluster (is Pathways' cpu-np there?)


def _tpu_shape(pool: Any) -> Accelerator | None:
    labelled = pool.config.resource_labels.get("xcli-accelerator")
    if labelled:
        return lookup(labelled)
    machine, topology = pool.config.machine_type, pool.placement_policy.tpu_topology
    for name in all_names():
        acc = lookup(name)
        if acc.kind != "tpu" or acc.machine_type != machine:
            continue
        if topology and acc.topology == topology:
            return acc
        if not topology and acc.vms_per_slice == max(1, pool_nodes(pool)):
            return acc
    return None


def _gpu_shape(pool: Any) -> Accelerator | None:
    for config in pool.config.accelerators:
        for name in all_names():
            acc = lookup(name)
            if (
                acc.kind == "gpu"
                and acc.gke_accelerator == config.accelerator_type
                and acc.chips_per_vm == int(config.accelerator_count)
            ):
                return acc
    return None


def detect(cluster: Any) -> Detected:
    """The accelerator pools of a container.v1 Cluster; UserError when there are none, or
    several shapes."""
    shapes: dict[str, list[Any]] = {}
    for pool in cluster.node_pools:
        acc = _gpu_shape(pool) if pool.config.accelerators else _tpu_shape(pool)
        if acc is not None:
            shapes.setdefault(acc.name, []).append(pool)
    if not shapes:
        raise UserError(
            f"cluster {cluster.name} has no TPU or GPU node pool xcli knows",
            hint="`xcli cluster describe` lists its pools; `xcli catalog list` the shapes xcli "
            "knows",
        )
    if len(shapes) > 1:
        found = ", ".join(f"{n} ({len(p)} pool(s))" for n, p in sorted(shapes.items()))
        raise UserError(
            f"cluster {cluster.name} has several accelerator shapes: {found}",
            hint="xcli runs one shape per cluster; adapt it with --tpu-type/--device-type "
            "naming the shape whose pools it should use",
        )
    ((name, pools),) = shapes.items()
    acc = lookup(name)
    capacity = _capacity(pools[0])
    every = _names(list(cluster.node_pools))
    if acc.kind == "gpu":
        nodes = sum(pool_nodes(p) for p in pools)
        return Detected(acc, 1, nodes, capacity, _names(pools), every)
    return Detected(acc, len(pools), 1, capacity, _names(pools), every)


def _names(pools: list[Any]) -> tuple[str, ...]:
    return tuple(sorted(p.name for p in pools))


def _capacity(pool: Any) -> Capacity:
    kind = pool_capacity(pool)
    if kind == "reservation":
        values = list(pool.config.reservation_affinity.values)
        return Capacity("reservation", reservation=values[0] if values else None)
    return Capacity(kind)  # type: ignore[arg-type]


def spec_for(
    detected: Detected,
    name: str,
    project: str,
    zone: str,
    pathways: bool = False,
    pathways_cpu_machine_type: str | None = None,
) -> ClusterSpec:
    """--pathways and --pathways-cpu-machine-type: the only pool adapt may add."""
    from xcli.providers.gke.options import GkeOptions

    return ClusterSpec(
        name=name,
        project=project,
        zone=zone,
        provider="gke",
        accelerator=detected.accelerator,
        capacity=detected.capacity,
        num_slices=detected.slices,
        num_nodes=detected.nodes,
        options=GkeOptions(
            pathways=pathways, pathways_cpu_machine_type=pathways_cpu_machine_type or None
        ),
    )


@dataclass(frozen=True, kw_only=True)
class AdaptRead(Step):
    """Read the JobSet and Kueue controllers installed; refuse a downgrade, ask before a
    breaking upgrade (`ask_first` lists the rule), say what will be installed."""

    kind: ClassVar[str] = "gke_adapt_read"

    cluster: Text
    deployments: tuple[str, ...]
    targets: Mapping[str, str]
    ask_first: Mapping[str, str]


def plan_adapt(
    spec: ClusterSpec,
    cluster: Text,
    pools: tuple[str, ...] = (),
    all_pools: tuple[str, ...] = (),
) -> Plan:
    """`all_pools`: every pool the live read found (Pathways' cpu-np is made when missing)."""
    if spec.accelerator.kind == "cpu" and not pools:
        # a CPU shape's flavor selects the node label xcli's own CPU pools carry (bodies.py
        # cpu_pool_body); another tool's pools have none, so its pods would never schedule
        raise UserError(
            f"{spec.accelerator.name} is a CPU shape: `cluster adapt` finds the pools of one "
            "by the xcli-accelerator node label that only xcli's CPU pools carry",
            hint=f"make the pools with `xcli cluster create --device-type {spec.accelerator.name}`",
        )
    pathways.check(spec)
    read = AdaptRead(
        id=READ,
        summary="read the JobSet and Kueue already installed (their controllers' image tags)",
        cluster=cluster,
        deployments=CONTROLLERS,
        targets=dict(TARGETS),
        ask_first={
            c: f"installed versions older than {v}: {why}" for c, (v, why) in BREAKING_BELOW.items()
        },
    )
    count = spec.num_slices if spec.accelerator.kind == "tpu" else spec.num_nodes
    shape = f"{spec.accelerator.name} x{count}"
    found = f" (node pools {', '.join(pools)})" if pools else ""
    heads = pathways.read_steps(spec)
    heads += pathways.pool_steps(spec, tuple(s.id for s in heads), dict.fromkeys(all_pools))
    touched = (
        "node pools are not touched except the Pathways head pool (cpu-np), added if missing"
        if heads
        else "node pools are not touched: only the in-cluster setup is installed"
    )
    return Plan(
        title=f"adapt GKE cluster {spec.name} for xcli: {shape}, {spec.capacity.kind}{found}",
        steps=(*heads, read, *setup_steps(spec, cluster, (READ,))),
        notes=(
            touched,
            *(
                ()
                if pools
                else (
                    "planned for the shape the flags name: a live run reads the cluster "
                    "(clusters.get) and plans for the node pools it finds",
                )
            ),
        ),
    )


def installed_version(deployment: Mapping[str, Any] | None) -> str:
    """The image tag of a controller Deployment's manager container ("" if not installed)."""
    if deployment is None:
        return ""
    containers = ((deployment.get("spec") or {}).get("template") or {}).get("spec", {}).get(
        "containers"
    ) or []
    chosen = next((c for c in containers if c.get("name") == "manager"), None) or (
        containers[0] if containers else {}
    )
    image = str(chosen.get("image", ""))
    last = image.rsplit("/", 1)[-1]
    return last.split(":", 1)[1] if ":" in last and "@" not in last else "unknown"


def read_handler(api_for: Callable[[str], KubeApi], ask: Callable[[str], bool]) -> Handler:
    def adapt_read(step: AdaptRead, ctx: StepContext) -> Mapping[str, Any]:
        api = api_for(str(step.cluster))
        out: dict[str, Any] = {}
        breaking: list[str] = []
        for item in step.deployments:
            namespace, _, name = item.partition("/")
            component = name.removesuffix("-controller-manager")
            have = installed_version(api.get("apps/v1", "Deployment", name, namespace))
            want = step.targets[component]
            kind = upgrade_kind(component, have, want)
            out[f"{component}_installed"] = have
            ctx.report(f"{component}: {have or 'not installed'} -> {want} ({kind})")
            if kind == "newer":
                raise UserError(
                    f"{component} {have} is installed, newer than the {want} this xcli installs",
                    hint="xcli does not downgrade it: upgrade xcli, then adapt again",
                )
            if kind == "breaking":
                breaking.append(f"{component} {have} -> {want}: {step.ask_first[component]}")
        if breaking and not ask("Upgrade across a breaking change? " + "; ".join(breaking)):
            raise UserError(
                "not adapted: the upgrade was declined",
                hint="back up or migrate the objects first, then run `xcli cluster adapt` again",
            )
        return out

    return adapt_read


def observe(provider: object, project: str, region: str, name: str) -> Detected:
    """clusters.get through the registry's GKE provider, then `detect`."""
    from xcli.errors import InternalError, NotFoundError
    from xcli.providers.gke.provider import GkeProvider

    if not isinstance(provider, GkeProvider):
        raise InternalError(f"cluster adapt needs the GKE provider, not {type(provider).__name__}")
    cluster = provider.container.get_cluster(project, region, name)
    if cluster is None:
        raise NotFoundError(
            f"cluster {name} not found in {project}/{region}",
            hint="`xcli cluster list` shows the clusters of the project and region",
        )
    return detect(cluster)
