"""Frozen, validated inputs of `xcli workload create`, and the cluster facts it is checked against.

WorkloadSpec is what the user asked for; ClusterMeta is what the cluster has (read from the
`xcli-cluster-metadata` ConfigMap on GKE, or given on the command line for a dry-run).
Everything here is checked before anything is planned or sent.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from xcli.catalog import Accelerator, lookup
from xcli.errors import ConfigError, UserError
from xcli.spec import Capacity, check_name, check_reservation

if TYPE_CHECKING:
    from xcli.plan.hang import HangRule

# Pod priority classes `cluster create` installs (value = scheduling priority).
PRIORITIES = {"very-low": 100, "low": 250, "medium": 500, "high": 750, "very-high": 1000}

# The LocalQueue workloads are submitted to unless the cluster's metadata names another.
DEFAULT_LOCAL_QUEUE = "xcli-queue"

# Names of the replicated job inside the JobSet; they are part of every pod name.
TPU_REPLICATED_JOB = "slice"
GPU_REPLICATED_JOB = "workers"

# A pod name must be a DNS-1035 label (63 characters) and the JobSet webhook checks the longest
# generated one, <jobset>-<replicatedJob>-<jobIndex>-<podIndex>-<5 random characters>
# (kubernetes-sigs/jobset pkg/webhooks/jobset_webhook.go, v0.12.0).
DNS_LABEL_MAX = 63
POD_SUFFIX = 5

# Environment variables xcli sets itself for each kind of hardware (on GKE and on VM-style
# clusters); users may not set them too.
CONTRACT_ENV = {
    "tpu": (
        "TPU_WORKER_ID",
        "TPU_WORKER_HOSTNAMES",
        "MEGASCALE_COORDINATOR_ADDRESS",
        "MEGASCALE_NUM_SLICES",
        "MEGASCALE_SLICE_ID",
        "MEGASCALE_PORT",
        "JAX_COORDINATOR_ADDRESS",
        "JAX_NUM_PROCESSES",
        "JAX_PROCESS_ID",
    ),
    "gpu": (
        "JOBSET_NAME",
        "REPLICATED_JOB_NAME",
        "NODE_RANK",
        "NNODES",
        "MASTER_ADDR",
        "MASTER_PORT",
        "JAX_COORDINATOR_ADDRESS",
        "JAX_NUM_PROCESSES",
        "JAX_PROCESS_ID",
    ),
}

_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass(frozen=True)
class ClusterMeta:
    """What a cluster offers workloads: its accelerator, slices (or GPU nodes), capacity."""

    name: str
    provider: str
    accelerator: Accelerator
    capacity: Capacity
    num_slices: int = 1
    num_nodes: int = 1
    local_queue: str = DEFAULT_LOCAL_QUEUE
    source: str = "configmap"  # where these facts came from: configmap, file or flags
    kueue_topology: str = ""  # the Kueue Topology its flavor names (workload/scheduling.py)
    # "super" on a cluster made with --super-slicing: its slices are 4x4x4 sub-blocks that GKE's
    # slice controller joins into each workload's shape (workload/jobset/slicing.py)
    dynamic_slicing: str = ""
    pathways_pool: str = ""  # the Pathways head pool (cluster create --pathways), if any
    # JobSet feature gates `cluster create` turned on (--slice-restarts: RestartJob)
    jobset_gates: tuple[str, ...] = ()
    # without an image a workload runs as a plain process on each worker (the provider's
    # Capabilities.plain_process: the local provider)
    plain_process: bool = False
    # (region, display name) of the Vertex AI Tensorboard `cluster create --vertex-tensorboard`
    # made, if any (xcli/plan/vertex.py)
    tensorboard: tuple[str, str] | None = None
    # node auto-provisioning (cluster create --enable-autoprovisioning): the most chips of the
    # accelerator's family GKE may provision; 0 when the cluster has its own pools
    nap_max_chips: int = 0

    @property
    def autoprovisioned(self) -> bool:
        return self.nap_max_chips > 0


def cluster_meta_from_dict(
    data: Mapping[str, Any], cluster: str, source: str = "configmap"
) -> ClusterMeta:
    """Read the `xcli-cluster-metadata` ConfigMap's data (all values strings) or a file of it.

    Keys: accelerator, num_slices (or slices), num_nodes, capacity (or capacity_type:
    on-demand|spot|reservation|flex-start|guaranteed), reservation, provider, local_queue.
    A whole ConfigMap object is accepted too: its `data` is used.
    """
    if isinstance(data.get("data"), Mapping):
        data = data["data"]
    where = f"cluster {cluster} metadata ({source})"
    accel_name = data.get("accelerator")
    if not accel_name:
        raise ConfigError(f"{where} names no accelerator", hint="it needs an `accelerator` key")
    capacity_kind = str(data.get("capacity", data.get("capacity_type", "on-demand")))
    if capacity_kind not in ("on-demand", "spot", "reservation", "flex-start", "guaranteed"):
        raise ConfigError(
            f"{where}: unknown capacity {capacity_kind!r}",
            hint="capacity is one of on-demand, spot, reservation, flex-start, guaranteed",
        )
    reservation = data.get("reservation")
    if capacity_kind == "reservation":
        if not reservation:
            raise ConfigError(f"{where}: capacity reservation without a `reservation` name")
        reservation = check_reservation(str(reservation))
    return ClusterMeta(
        name=cluster,
        provider=str(data.get("provider", "gke")),
        accelerator=lookup(str(accel_name)),
        capacity=Capacity(capacity_kind, reservation=reservation),  # type: ignore[arg-type]
        # 0: a cluster made with --num-slices 0 (no accelerator pool yet); check_fits refuses
        num_slices=_count(
            data.get("num_slices", data.get("slices", 1)), "num_slices", where, least=0
        ),
        num_nodes=_count(data.get("num_nodes", 1), "num_nodes", where),
        local_queue=str(data.get("local_queue", DEFAULT_LOCAL_QUEUE)),
        source=source,
        kueue_topology=str(data.get("kueue_topology", "")),
        dynamic_slicing=str(data.get("dynamic_slicing", "")),
        pathways_pool=str(data.get("pathways_pool", "")),
        jobset_gates=tuple(g for g in str(data.get("jobset_feature_gates", "")).split(",") if g),
        tensorboard=(
            (str(data["tensorboard_region"]), str(data["tensorboard_name"]))
            if data.get("tensorboard_region") and data.get("tensorboard_name")
            else None
        ),
        nap_max_chips=_nap_max(data, where),
    )


def _nap_max(data: Mapping[str, Any], where: str) -> int:
    """The chip limit of an auto-provisioning cluster (0: it has its own pools)."""
    if str(data.get("autoprovisioning", "")).lower() != "true":
        return 0
    return _count(data.get("autoprovisioning_max_chips"), "autoprovisioning_max_chips", where)


def _count(value: Any, key: str, where: str, least: int = 1) -> int:
    try:
        count = int(str(value))
    except ValueError:
        raise ConfigError(f"{where}: {key} {value!r} is not a number") from None
    if count < least:
        raise ConfigError(f"{where}: {key} must be at least {least}, not {count}")
    return count


def parse_env(pairs: Iterable[str], env_file: Path | None = None) -> tuple[tuple[str, str], ...]:
    """--env K=V (repeatable) after --env-file lines; later values win; names are checked."""
    found: dict[str, str] = {}
    if env_file is not None:
        for number, line in enumerate(_read(env_file).splitlines(), 1):
            text = line.strip()
            if not text or text.startswith("#"):
                continue
            text = text.removeprefix("export ").strip()
            name, value = _split(text, f"{env_file}:{number}")
            found[name] = _unquote(value)
    for pair in pairs:
        name, value = _split(pair, "--env")
        found[name] = value
    _check_env_size(found)
    return tuple(found.items())


def _check_env_size(found: dict[str, str]) -> None:
    """The variables together, from --env and --env-file, under the cap --env-file has alone."""
    from xcli.user_files import MIB

    size = sum(len(k.encode()) + len(v.encode()) + 2 for k, v in found.items())
    if size > MIB:
        raise UserError(
            f"the environment variables add up to {size / MIB:.1f} MiB; the limit is 1 MiB",
            hint="variables end up in one Kubernetes object; pass large data as a file "
            "in a storage (--storage) instead",
        )


def _read(path: Path) -> str:
    from xcli.user_files import MIB, read_text

    # The variables end up in the JobSet object (or every worker's environment); Kubernetes
    # keeps an object under ~1.5 MB (etcd's request limit), so 1 MiB of variables is plenty.
    return read_text(path, "--env-file", MIB, "variables end up in one Kubernetes object")


def _split(text: str, where: str) -> tuple[str, str]:
    name, sep, value = text.partition("=")
    if not sep:
        raise UserError(f"{where}: {text!r} is not NAME=VALUE", hint="write it as NAME=VALUE")
    if not _ENV_NAME.match(name):
        raise UserError(
            f"{where}: {name!r} is not a valid environment variable name",
            hint="names are letters, digits and underscores, not starting with a digit",
        )
    return name, value


def _check_contract(env: tuple[tuple[str, str], ...], accel: Accelerator) -> None:
    taken = [name for name, _ in env if name in CONTRACT_ENV[accel.kind]]
    if taken:
        raise UserError(
            f"--env {taken[0]} is set by xcli for every {accel.kind.upper()} worker and cannot "
            "be overridden",
            hint="pick another name; `xcli workload create --help` lists the variables xcli sets",
        )


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value


def max_workload_name(accel: Accelerator, slices: int, nodes: int) -> int:
    """The longest workload name whose generated pod names still fit a 63-character label."""
    if accel.kind == "tpu":
        rjob, jobs, pods = TPU_REPLICATED_JOB, slices, accel.vms_per_slice
    else:
        rjob, jobs, pods = GPU_REPLICATED_JOB, 1, nodes
    tail = f"-{rjob}-{jobs - 1}-{pods - 1}-" + "x" * POD_SUFFIX
    return DNS_LABEL_MAX - len(tail)


def check_workload_name(name: str, accel: Accelerator, slices: int, nodes: int) -> str:
    limit = max_workload_name(accel, slices, nodes)
    check_name(name, "workload", DNS_LABEL_MAX)
    if len(name) > limit:
        shape = (
            f"{slices} slice(s) of {accel.vms_per_slice} VMs"
            if accel.kind == "tpu"
            else (f"{nodes} node(s)")
        )
        rjob = TPU_REPLICATED_JOB if accel.kind == "tpu" else GPU_REPLICATED_JOB
        raise UserError(
            f"workload name {name!r} is {len(name)} characters; with {shape} the limit is {limit}",
            hint=f"pod names are <workload>-{rjob}-<slice>-<worker>-<5 random characters> and "
            f"must fit {DNS_LABEL_MAX} characters; use a name of at most {limit}",
        )
    return name


# Disruptions a GKE run may take for free: larger than any --max-restarts default, small
# enough that a program evicted for memory again and again fails within hours, not never.
DEFAULT_MAX_DISRUPTIONS = 20


@dataclass(frozen=True)
class WorkloadSpec:
    """What `xcli workload create` was asked to run. Built by `workload_spec()`, never by hand."""

    cluster: str
    name: str
    image: str
    command: str
    accelerator: Accelerator
    num_slices: int
    num_nodes: int
    priority: str = "medium"
    max_restarts: int = 0
    restart_on_exit_codes: tuple[int, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    # free restarts (disruptions) allowed beyond max_restarts (manifest.py container_command)
    max_disruptions: int = DEFAULT_MAX_DISRUPTIONS
    hang_after: HangRule | None = None  # VM-style runs: xcli/plan/hang.py
    recover: bool = False  # VM-style runs on a Recoverer provider: re-create preempted slices
    ttl_after_finished: int = 12 * 3600
    termination_grace_period: int = 30
    replace: bool = False
    namespace: str = "default"
    scheduler: str = "default-scheduler"  # workload/scheduling.py: XPK's --scheduler values
    env_secret: bool = False  # the user's env values in a Secret (workload/jobset/env_secret.py)
    # names in `env` that xcli set itself (a storage lever's path): shown, never secret
    lever_env: tuple[str, ...] = ()

    @property
    def user_env_names(self) -> tuple[str, ...]:
        """The names of the user's own variables (--env, --env-file): hidden in the plan."""
        return tuple(name for name, _ in self.env if name not in self.lever_env)

    @property
    def workers_per_slice(self) -> int:
        return self.accelerator.vms_per_slice if self.accelerator.kind == "tpu" else self.num_nodes

    @property
    def total_workers(self) -> int:
        slices = self.num_slices if self.accelerator.kind == "tpu" else 1
        return slices * self.workers_per_slice

    @property
    def total_chips(self) -> int:
        return self.total_workers * self.accelerator.chips_per_vm


def workload_spec(
    *,
    cluster: str,
    name: str,
    image: str,
    command: str,
    meta: ClusterMeta,
    accelerator: str | None = None,
    num_slices: int | None = None,
    num_nodes: int | None = None,
    priority: str = "medium",
    max_restarts: int = 0,
    max_disruptions: int = DEFAULT_MAX_DISRUPTIONS,
    restart_on_exit_codes: Iterable[int] = (),
    env: tuple[tuple[str, str], ...] = (),
    ttl_after_finished: int = 12 * 3600,
    termination_grace_period: int = 30,
    replace: bool = False,
) -> WorkloadSpec:
    """Fill the defaults from the cluster, then check every value; raise UserError on bad input."""
    accel = lookup(accelerator) if accelerator else meta.accelerator
    # on a --super-slicing cluster a slice is the workload's own shape, so one by default; the
    # cluster's num_slices counts its 4x4x4 sub-blocks (workload/jobset/slicing.py)
    default_slices = 1 if meta.dynamic_slicing else meta.num_slices
    slices = num_slices if num_slices is not None else default_slices
    nodes = num_nodes if num_nodes is not None else meta.num_nodes
    if accel.kind == "gpu" and num_slices not in (None, 1):
        raise UserError("--num-slices is for TPUs", hint="for GPUs use --num-nodes")
    if accel.kind == "cpu":
        # one pod per VM of the shape, as GPU workers are laid out (XPK's CI runs CPU shapes
        # with --num-slices=1); more VMs are a larger shape
        if num_slices not in (None, 1) or num_nodes is not None:
            raise UserError(
                f"{accel.name} is a CPU shape of {accel.vms_per_slice} VMs; a workload "
                "takes one shape, with --num-slices 1",
                hint=f"pick a shape with more VMs ({accel.family}-<VMs>), and drop --num-nodes",
            )
        nodes = accel.vms_per_slice
    if priority not in PRIORITIES:
        raise UserError(
            f"unknown priority {priority!r}", hint=f"use one of {', '.join(PRIORITIES)}"
        )
    no_image = meta.plain_process and not image  # a plain process on each worker
    if not no_image and (not image.strip() or any(c.isspace() for c in image)):
        raise UserError(
            f"docker image {image!r} is not an image reference", hint="e.g. repo/img:tag"
        )
    if not command.strip():
        raise UserError("the command is empty", hint="pass --command 'python3 train.py'")
    if not 0 <= max_restarts <= 10_000:
        raise UserError(f"--max-restarts {max_restarts} is out of range", hint="use 0..10000")
    if not 0 <= max_disruptions <= 10_000:
        raise UserError(f"--max-disruptions {max_disruptions} is out of range", hint="use 0..10000")
    _check_contract(env, accel)
    codes = tuple(sorted(set(restart_on_exit_codes)))
    bad = [c for c in codes if not 1 <= c <= 255]
    if bad:
        raise UserError(f"exit codes {bad} are not 1..255", hint="exit codes run from 1 to 255")
    return WorkloadSpec(
        cluster=cluster,
        name=check_workload_name(name, accel, slices, nodes),
        image=image.strip(),
        command=command,
        accelerator=accel,
        num_slices=slices if accel.kind == "tpu" else 1,
        num_nodes=nodes if accel.kind != "tpu" else 1,
        priority=priority,
        max_restarts=max_restarts,
        max_disruptions=max_disruptions,
        restart_on_exit_codes=codes,
        env=env,
        ttl_after_finished=ttl_after_finished,
        termination_grace_period=termination_grace_period,
        replace=replace,
    )
