"""The local provider's data: cluster shape, ports, files, and the environment contract.

Pure values and small JSON records, shared by the provider (planning, list, describe) and the
gateways that run the emulated workers. Nothing here starts a process or opens a socket.

The environment contract (docs/local-provider.md) follows what a real TPU VM worker gets:
- TPU_WORKER_ID: the worker's index within its slice; TPU_WORKER_HOSTNAMES: the slice's workers,
  comma-separated, in worker order (here all 127.0.0.1).
- MEGASCALE_NUM_SLICES, MEGASCALE_SLICE_ID; MEGASCALE_COORDINATOR_ADDRESS: host:port of worker 0
  of slice 0; MEGASCALE_PORT: the port this worker's runtime would listen on. On real VMs every
  host uses the same port on its own address; here the hosts share 127.0.0.1, so each worker
  gets its own port and the coordinator address carries slice 0 worker 0's.
- JAX_COORDINATOR_ADDRESS (read by jax.distributed.initialize itself), JAX_NUM_PROCESSES,
  JAX_PROCESS_ID (pass these two to initialize): process id = slice * workers_per_slice +
  worker, the numbering JAX's own TPU cluster detection uses. JAX_COORDINATOR_BIND_ADDRESS keeps
  the coordinator service on loopback (JAX binds every interface by default).
- XCLI_PROFILER_PORT: the port the worker's program gives `jax.profiler.start_server`
  (`xcli.goodput.profiler_port()`), which `xcli workload profile` captures from. A real host
  uses 9999 on its own address; here the hosts share 127.0.0.1, so each worker gets its own.
- SLURM_JOB_ID, SLURM_STEP_NODELIST, SLURM_NTASKS, SLURM_PROCID, SLURM_LOCALID: the variables of
  JAX's Slurm detection (jax/_src/clusters/slurm_cluster.py, jax 0.10.2), so that
  `jax.distributed.initialize()` with no arguments works with CPU JAX as it does on a TPU VM.
  JAX's TPU detection (jax/_src/clusters/cloud_tpu_cluster.py) reads TPU_WORKER_HOSTNAMES,
  TPU_WORKER_ID and MEGASCALE_* only when jax/_src/cloud_tpu_init.py found TPU chips and
  libtpu (`running_in_cloud_tpu_vm`), which never holds on an emulated worker; its Slurm
  detection needs only these variables, and JAX_COORDINATOR_ADDRESS still names the coordinator.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from xcli import paths
from xcli.errors import InternalError
from xcli.state_files import write_private

HOST = "127.0.0.1"
FORMAT = "xcli.local/v1"
MAX_WORKERS = 256  # one process serves them all; beyond this a laptop is the wrong tool
INSTANCE_VAR = "XCLI_LOCAL_INSTANCE"  # tags every process a cluster starts, for cleanup
# Also in every process a cluster starts: the cluster's folder (absolute), which delete knows
# even when state.json (and with it the instance token) is damaged or gone.
DIR_VAR = "XCLI_LOCAL_DIR"


@dataclass(frozen=True)
class Layout:
    """The shape of an emulated cluster: `slices` slices of `workers_per_slice` workers."""

    cluster: str
    accelerator: str
    slices: int
    workers_per_slice: int

    @property
    def total(self) -> int:
        return self.slices * self.workers_per_slice

    def workers(self) -> Iterator[tuple[int, int]]:
        """(slice, worker) pairs in process-id order."""
        for s in range(self.slices):
            for w in range(self.workers_per_slice):
                yield s, w

    def process_id(self, slice_: int, worker: int) -> int:
        return slice_ * self.workers_per_slice + worker


@dataclass(frozen=True)
class Ports:
    """Every port a cluster uses, by process id."""

    ssh: tuple[int, ...]
    megascale: tuple[int, ...]
    jax: int
    # XCLI_PROFILER_PORT per worker; empty in a state.json written before profiling came
    profiler: tuple[int, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "ssh": list(self.ssh),
            "megascale": list(self.megascale),
            "jax": self.jax,
            "profiler": list(self.profiler),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Ports:
        profiler = tuple(int(p) for p in data.get("profiler") or ())
        return cls(tuple(data["ssh"]), tuple(data["megascale"]), int(data["jax"]), profiler)

    def all(self) -> list[int]:
        return [*self.ssh, *self.megascale, self.jax, *self.profiler]


def ports_from_base(base: int, total: int) -> Ports:
    """--base-port B: SSH on B.., multislice ports after them, then the JAX coordinator, then
    the profiler ports."""
    jax = base + 2 * total
    if base < 1024 or jax + total > 65535:
        raise InternalError(f"port range {base}-{jax + total} was not validated")
    return Ports(
        ssh=tuple(range(base, base + total)),
        megascale=tuple(range(base + total, base + 2 * total)),
        jax=jax,
        profiler=tuple(range(jax + 1, jax + 1 + total)),
    )


def worker_env(layout: Layout, ports: Ports, slice_: int, worker: int) -> dict[str, str]:
    """The variables a worker's commands see (on top of a login environment)."""
    pid = layout.process_id(slice_, worker)
    return {
        "TPU_WORKER_ID": str(worker),
        "TPU_WORKER_HOSTNAMES": ",".join([HOST] * layout.workers_per_slice),
        "MEGASCALE_COORDINATOR_ADDRESS": f"{HOST}:{ports.megascale[0]}",
        "MEGASCALE_NUM_SLICES": str(layout.slices),
        "MEGASCALE_SLICE_ID": str(slice_),
        "MEGASCALE_PORT": str(ports.megascale[pid]),
        "JAX_COORDINATOR_ADDRESS": f"{HOST}:{ports.jax}",
        "JAX_COORDINATOR_BIND_ADDRESS": f"{HOST}:{ports.jax}",
        "JAX_NUM_PROCESSES": str(layout.total),
        "JAX_PROCESS_ID": str(pid),
        **({"XCLI_PROFILER_PORT": str(ports.profiler[pid])} if ports.profiler else {}),
        **slurm_env(layout.total, pid),
        "XCLI_CLUSTER": layout.cluster,
        "XCLI_WORKER": f"s{slice_}/w{worker}",
    }


def slurm_env(processes: int, process_id: int) -> dict[str, str]:
    """What JAX's Slurm detection reads for the process count and id (module docstring). The
    job id is a placeholder: JAX derives a coordinator port from it only when
    JAX_COORDINATOR_ADDRESS is unset. Every worker is its own host: one task per node."""
    return {
        "SLURM_JOB_ID": "0",
        "SLURM_STEP_NODELIST": HOST,
        "SLURM_NTASKS": str(processes),
        "SLURM_PROCID": str(process_id),
        "SLURM_LOCALID": "0",
    }


def cluster_root() -> Path:
    return paths.state_dir() / "local"


def relative_dir(cluster: str) -> str:
    """How plans name a cluster's folder: relative to $XCLI_HOME, so dry-runs are portable."""
    return f"local/{cluster}"


@dataclass(frozen=True)
class ClusterFiles:
    """Where one cluster's state lives: $XCLI_HOME/local/<cluster>/..."""

    root: Path

    @classmethod
    def of(cls, cluster: str) -> ClusterFiles:
        return cls(cluster_root() / cluster)

    @classmethod
    def at(cls, relative: str) -> ClusterFiles:
        return cls(paths.state_dir() / relative)

    @property
    def spec(self) -> Path:
        return self.root / "cluster.json"

    @property
    def state(self) -> Path:
        return self.root / "state.json"

    @property
    def keys(self) -> Path:
        return self.root / "keys"

    @property
    def client_key(self) -> Path:
        return self.keys / "client_ed25519"

    def host_key(self, slice_: int, worker: int) -> Path:
        return self.keys / f"host_s{slice_}_w{worker}"

    @property
    def known_hosts(self) -> Path:
        return self.root / "known_hosts"

    def worker_dir(self, slice_: int, worker: int) -> Path:
        return self.root / "workers" / f"s{slice_}-w{worker}"

    @property
    def log(self) -> Path:
        return self.root / "supervisor.log"

    @property
    def procs(self) -> Path:
        """One file per process group the supervisor started and has not yet reaped."""
        return self.root / "procs"


@dataclass(frozen=True)
class ClusterSpecRecord:
    """cluster.json: what was asked for (written before the supervisor starts)."""

    cluster: str
    accelerator: str
    slices: int
    workers_per_slice: int
    base_port: int | None
    user: str

    @property
    def layout(self) -> Layout:
        return Layout(self.cluster, self.accelerator, self.slices, self.workers_per_slice)


@dataclass(frozen=True)
class StateRecord:
    """state.json: written by the supervisor once every port is bound (or it failed to)."""

    pid: int
    instance: str
    status: str  # "running" or "failed"
    ports: Ports | None
    error: str = ""
    # what the supervisor serves (cluster.json's shape, kept here too: cluster.json may be lost)
    shape: dict[str, Any] | None = None

    def serves(self) -> str | None:
        """'v5litepod-16 x2', or None when this record does not say."""
        if not self.shape:
            return None
        return f"{self.shape.get('accelerator')} x{self.shape.get('slices')}"


def write_json(path: Path, data: Mapping[str, Any]) -> None:
    """Atomically: a reader sees the old file or the new one, never half of one."""
    write_private(path, json.dumps({"format": FORMAT, **data}, indent=2) + "\n")  # 0600


def _read(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and data.get("format") == FORMAT else None


def write_spec(files: ClusterFiles, record: ClusterSpecRecord) -> None:
    write_json(files.spec, asdict(record))


def read_spec(files: ClusterFiles) -> ClusterSpecRecord | None:
    data = _read(files.spec)
    if data is None:
        return None
    data.pop("format")
    try:
        return ClusterSpecRecord(**data)
    except TypeError:
        return None


def write_state(files: ClusterFiles, record: StateRecord) -> None:
    data = asdict(record)
    data["ports"] = record.ports.to_json() if record.ports else None
    write_json(files.state, data)


def read_state(files: ClusterFiles) -> StateRecord | None:
    data = _read(files.state)
    if data is None:
        return None
    try:
        ports = Ports.from_json(data["ports"]) if data.get("ports") else None
        from xcli.gateways.process import PID_MAX_LIMIT

        pid = int(data["pid"])
        if not 1 <= pid <= PID_MAX_LIMIT:  # no process can have it: a damaged record
            return None  # (the signals refuse 1 as well: process.valid_pid)
        return StateRecord(
            pid,
            str(data["instance"]),
            str(data["status"]),
            ports,
            data["error"],
            data.get("shape") if isinstance(data.get("shape"), dict) else None,
        )
    except (KeyError, TypeError, ValueError):
        return None


def served_shape(files: ClusterFiles, state: StateRecord) -> dict[str, Any] | None:
    """The shape a running supervisor serves: cluster.json's, else the copy in state.json."""
    spec = read_spec(files)
    if spec is not None:
        return {k: v for k, v in asdict(spec).items() if k not in ("cluster", "user")}
    return state.shape


def shape_conflict(served: dict[str, Any] | None, asked: ClusterSpecRecord) -> str | None:
    """None when the running cluster is what `asked` describes; else what it runs as."""
    if served is None:
        return "a shape xcli cannot read (cluster.json and state.json do not say)"
    same = (
        served.get("accelerator") == asked.accelerator
        and served.get("slices") == asked.slices
        and served.get("workers_per_slice") == asked.workers_per_slice
        and (not asked.base_port or served.get("base_port") == asked.base_port)
    )
    if same:
        return None
    port = f" on --base-port {served['base_port']}" if served.get("base_port") else ""
    return f"{served.get('accelerator')} x{served.get('slices')}{port}"
