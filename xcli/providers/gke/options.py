"""The gke provider's own options (its flags of `cluster create`, and the shared --network and
--private groups), typed and frozen once from the request (Registry.options). Only this module
reads them by name; the provider's planners read the fields of GkeOptions, and the shared plan/
builders get the values they need as arguments.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from xcli.plan.gke.pathways_pool import DEFAULT_MACHINE as PATHWAYS_MACHINE
from xcli.spec import ClusterSpec, ProviderOptions

# Node pools created at once. GKE runs one operation per node pool at a time and none while a
# cluster-level operation runs, and documents no cap on concurrent operations on different
# pools (https://cloud.google.com/kubernetes-engine/docs/troubleshooting/concurrent-operations);
# XPK creates node pools 100 at a time (AI-Hypercomputer/xpk@367c8382 src/xpk/core/nodepool.py
# l.424-429, `batch=100`, raised from 10 by PR #1068 for clusters of 288 cubes). xcli keeps a
# sliding window of the same width rather than fixed batches, and backs off on 429.
DEFAULT_POOL_PARALLELISM = 100


@dataclass(frozen=True)
class GkeOptions(ProviderOptions):
    release_channel: str | None = None  # as given, any case; the planner checks and upper-cases
    gke_version: str | None = None
    cpu_machine_type: str | None = None
    cpu_num_nodes: int | None = None  # the system pool's nodes, at least (bodies.system_pool)
    pool_parallelism: int | None = None
    image_streaming: bool = False
    secondary_boot_disk: tuple[str, ...] = ()
    pathways: bool = False
    pathways_cpu_machine_type: str | None = None
    ray_version: str | None = None  # plan/gke/ray.py: XPK's cluster create-ray
    slice_restarts: bool = False  # JobSet's RestartJob gate (plan/gke/jobset_config.py)
    lustre_legacy_port: bool = False  # the Lustre CSI driver on at create, on port 6988
    vertex_tensorboard: bool = False  # plan/vertex.py
    ml_diagnostics: bool = False  # plan/ml_diagnostics.py
    tensorboard_region: str | None = None
    tensorboard_name: str | None = None
    network: str | None = None
    subnetwork: str | None = None
    private: bool = False
    private_endpoint: bool = False
    authorized_networks: tuple[str, ...] = ()
    master_ipv4_cidr: tuple[str, ...] = ()
    private_endpoint_subnetwork: str | None = None
    # node auto-provisioning (providers/gke/nap.py); the chip limits as given
    autoprovisioning: bool = False
    autoprovisioning_min_chips: int | None = None
    autoprovisioning_max_chips: int | None = None
    # dynamic slicing (providers/gke/slicing.py): node pools of 4x4x4 sub-blocks that GKE's
    # slice controller joins into slices of the workloads' shapes
    super_slicing: bool = False
    num_cubes: int | None = None

    @property
    def channel(self) -> str:
        """The release channel the API takes: REGULAR by default, RAPID for dynamic slicing
        (GKE's dynamic slicing needs a Rapid-channel cluster: providers/gke/slicing.py)."""
        default = "RAPID" if self.super_slicing else "REGULAR"
        return (self.release_channel or default).upper()

    @property
    def parallelism(self) -> int:
        return self.pool_parallelism or DEFAULT_POOL_PARALLELISM

    @property
    def pathways_machine(self) -> str | None:
        """The machine type of the Pathways heads' pool; None without --pathways."""
        return (self.pathways_cpu_machine_type or PATHWAYS_MACHINE) if self.pathways else None


def gke_options(flags: Mapping[str, object]) -> GkeOptions:
    """The gke provider's flag values (click's names, as the CLI gives them), typed."""
    parallelism = flags.get("pool_parallelism")
    return GkeOptions(
        release_channel=_text(flags.get("release_channel")),
        gke_version=_text(flags.get("gke_version")),
        cpu_machine_type=_text(flags.get("cpu_machine_type")),
        cpu_num_nodes=int(str(flags["cpu_num_nodes"])) if flags.get("cpu_num_nodes") else None,
        pool_parallelism=int(str(parallelism)) if parallelism else None,
        image_streaming=bool(flags.get("image_streaming")),
        secondary_boot_disk=_texts(flags.get("secondary_boot_disk")),
        pathways=bool(flags.get("pathways")),
        pathways_cpu_machine_type=_text(flags.get("pathways_cpu_machine_type")),
        ray_version=_text(flags.get("ray_version")),
        slice_restarts=bool(flags.get("slice_restarts")),
        lustre_legacy_port=bool(flags.get("lustre_legacy_port")),
        vertex_tensorboard=bool(flags.get("vertex_tensorboard")),
        ml_diagnostics=bool(flags.get("ml_diagnostics")),
        tensorboard_region=_text(flags.get("tensorboard_region")),
        tensorboard_name=_text(flags.get("tensorboard_name")),
        network=_text(flags.get("network")),
        subnetwork=_text(flags.get("subnetwork")),
        private=bool(flags.get("private")),
        private_endpoint=bool(flags.get("private_endpoint")),
        authorized_networks=_texts(flags.get("authorized_networks")),
        master_ipv4_cidr=_texts(flags.get("master_ipv4_cidr")),
        private_endpoint_subnetwork=_text(flags.get("private_endpoint_subnetwork")),
        autoprovisioning=bool(flags.get("enable_autoprovisioning")),
        autoprovisioning_min_chips=_count(flags.get("autoprovisioning_min_chips")),
        autoprovisioning_max_chips=_count(flags.get("autoprovisioning_max_chips")),
        super_slicing=bool(flags.get("super_slicing")),
        num_cubes=int(str(cubes)) if (cubes := flags.get("num_cubes")) else None,
    )


def of(spec: ClusterSpec) -> GkeOptions:
    """The spec's GkeOptions; a spec built without options gets the defaults."""
    found = spec.options
    if isinstance(found, GkeOptions):
        return found
    if type(found) is ProviderOptions:
        return DEFAULTS
    raise TypeError(f"a gke spec carries {type(found).__name__}, not GkeOptions")


DEFAULTS = GkeOptions()


def _text(value: object) -> str | None:
    return str(value) if value not in (None, "") else None


def _count(value: object) -> int | None:
    return None if value is None or value == "" else int(str(value))


def _texts(value: object) -> tuple[str, ...]:
    if not value:
        return ()
    if isinstance(value, (list, tuple)):
        return tuple(str(v) for v in value)
    return (str(value),)
