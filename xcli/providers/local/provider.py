"""--provider local: TPU slices emulated on this machine, one SSH server per worker on loopback.

Planning is pure: the plan names every file relative to $XCLI_HOME and every port chosen at
run time as a Ref, so `--dry-run` prints the same bytes on any machine. The live handlers are in
xcli/providers/local/handlers.py; the supervisor they start in xcli/providers/local/supervisor.py.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from xcli.errors import NotFoundError, UserError
from xcli.plan.cluster import ClusterRef, ClusterSummary, SshAccess, Worker
from xcli.plan.contract import Handler
from xcli.plan.model import Plan, Ref
from xcli.plan.steps import LocalAction
from xcli.providers.base import LostCapacity, Provider
from xcli.providers.local import options as local_opts
from xcli.providers.local.layout import (
    HOST,
    MAX_WORKERS,
    ClusterFiles,
    ClusterSpecRecord,
    StateRecord,
    cluster_root,
    read_spec,
    read_state,
    relative_dir,
    worker_env,
)
from xcli.spec import ClusterSpec, check_name
from xcli.terraform.support import TerraformSupport

START_TIMEOUT = 30
NOTES = (
    "paths are relative to $XCLI_HOME (default ~/.local/state/xcli)",
    "every server listens on 127.0.0.1 only; key-only authentication with the cluster's key",
)


def _check(spec: ClusterSpec) -> tuple[int, int | None]:
    check_name(spec.name, "cluster", 40)
    accel = spec.accelerator
    if accel.kind != "tpu":
        raise UserError(
            f"the local provider emulates TPU slices, not {accel.name}",
            hint="pass --tpu-type, e.g. --tpu-type v5litepod-16",
        )
    if spec.num_slices < 1:
        raise UserError(
            "--num-slices 0 (a cluster without accelerators) is for --provider gke",
            hint="pass --num-slices 1 or more",
        )
    if spec.capacity.kind != "on-demand":
        raise UserError(
            f"--{spec.capacity.kind} does not apply to --provider local",
            hint="drop the capacity flag: a local cluster uses this machine",
        )
    total = accel.vms_per_slice * spec.num_slices
    if total > MAX_WORKERS:
        raise UserError(
            f"{accel.name} x{spec.num_slices} is {total} workers; the local provider runs at "
            f"most {MAX_WORKERS}",
            hint="use a smaller --tpu-type or fewer --num-slices",
        )
    base = local_opts.of(spec).base_port
    # ssh, multislice, jax and profiler ports
    if base is not None and (base < 1024 or base + 3 * total > 65535):
        raise UserError(
            f"--base-port {base} leaves no room for {3 * total + 1} ports",
            hint=f"choose a port from 1024 to {65535 - 3 * total}",
        )
    return total, base


class LocalProvider:
    name = "local"
    terraform: TerraformSupport | None = None  # nothing in the cloud to describe

    def plan_create(self, spec: ClusterSpec) -> Plan:
        total, base = _check(spec)
        accel = spec.accelerator
        where = relative_dir(spec.name)
        shape = {
            "cluster": spec.name,
            "dir": where,
            "accelerator": accel.name,
            "slices": spec.num_slices,
            "workers_per_slice": accel.vms_per_slice,
        }
        ports = f"ports {base}-{base + 3 * total}" if base else "free ports"
        steps = (
            LocalAction(
                id="keys",
                summary=f"Generate the client key and {total} worker host keys "
                "(ed25519; kept if present)",
                action="generate_keys",
                args=shape,
            ),
            LocalAction(
                id="start",
                summary=f"Start the supervisor: {total} SSH servers on {HOST}, {ports}",
                after=("keys",),
                action="start_supervisor",
                args={**shape, "base_port": base, "timeout_seconds": START_TIMEOUT},
            ),
            LocalAction(
                id="pin",
                summary="Pin the workers' host keys in the cluster's known_hosts",
                after=("start",),
                action="pin_host_keys",
                args={
                    "dir": where,
                    "known_hosts": f"{where}/known_hosts",
                    "ports": Ref("start", "ports"),
                    "host_keys": Ref("keys", "host_keys"),
                },
            ),
            LocalAction(
                id="wait",
                summary=f"Wait until all {total} workers answer over SSH",
                after=("pin",),
                action="wait_workers",
                args={"dir": where, "ports": Ref("start", "ports"), "timeout_seconds": 30},
            ),
        )
        title = f"create local cluster {spec.name}: {accel.name} x{spec.num_slices}"
        return Plan(title=title, steps=steps, notes=NOTES)

    def check_create(self, spec: ClusterSpec) -> None:
        """A live create's checks against this machine, before anything is written: the
        name does not run as another shape; a --base-port range is free."""
        from xcli.providers.local.handlers import check_create, local_user

        _, base = _check(spec)
        accel = spec.accelerator
        record = ClusterSpecRecord(
            spec.name, accel.name, spec.num_slices, accel.vms_per_slice, base, local_user()
        )
        check_create(record)

    def plan_delete(self, ref: ClusterRef) -> Plan:
        check_name(ref.name, "cluster", 40)
        where = relative_dir(ref.name)
        steps = (
            LocalAction(
                id="stop",
                summary="Stop the supervisor and every process its workers started",
                action="stop_supervisor",
                args={"cluster": ref.name, "dir": where},
            ),
            LocalAction(
                id="remove",
                summary="Remove the cluster's keys, state and worker folders",
                after=("stop",),
                action="remove_state",
                args={"dir": where},
            ),
        )
        return Plan(title=f"delete local cluster {ref.name}", steps=steps, notes=NOTES[:1])

    def handlers(self, ref: ClusterRef) -> Mapping[str, Handler]:
        from xcli.providers.local.handlers import handle

        return {"local": handle}

    # --- recovery (workload create --recover) ---------------------------------------------

    def capacity_lost(self, ref: ClusterRef) -> LostCapacity | None:
        """The emulated hosts are gone: the cluster's record says it ran, its supervisor (every
        worker's SSH server) is dead. The emulator's preemption: nothing else kills it."""
        files = ClusterFiles.of(check_name(ref.name, "cluster", 40))
        spec = read_spec(files)
        status, _ = self._status(files)
        if spec is None or status != "stale":
            return None
        why = f"local cluster {ref.name}: its SSH servers are gone (its hosts were preempted)"
        return LostCapacity(why, {"spec": spec})

    def plan_recover(self, ref: ClusterRef, lost: LostCapacity) -> Plan:
        """The cluster's own create plan again, from what it was created with (cluster.json):
        the servers start on free ports and their host keys are pinned again."""
        from xcli.catalog import lookup
        from xcli.spec import Capacity

        spec: ClusterSpecRecord = lost.observed["spec"]
        options = local_opts.LocalOptions(base_port=spec.base_port)
        again = ClusterSpec(ref.name, "", "", self.name, lookup(spec.accelerator),
                            Capacity("on-demand"), spec.slices, options=options)  # fmt: skip
        return self.plan_create(again)

    # --- inspection -----------------------------------------------------------------------
    def _status(self, files: ClusterFiles) -> tuple[str, StateRecord | None]:
        from xcli.providers.local.handlers import supervisor_alive

        state = read_state(files)
        if state is None:
            return "not running", None
        if state.status == "failed":
            return "failed", state
        return ("running" if supervisor_alive(state) else "stale"), state

    def list_clusters(self, project: str, zone: str | None) -> list[ClusterSummary]:
        root = cluster_root()
        rows = []
        for folder in sorted(root.iterdir()) if root.is_dir() else []:
            spec = read_spec(ClusterFiles(folder))
            if spec is None:
                continue
            status, state = self._status(ClusterFiles(folder))
            extra = {"pid": state.pid if state else None, "dir": str(folder)}
            rows.append(
                ClusterSummary(
                    name=spec.cluster,
                    provider="local",
                    location=HOST,
                    accelerator=spec.accelerator,
                    slices=spec.slices,
                    capacity="local",
                    status=status,
                    extra=extra,
                )
            )
        return rows

    def _running(self, ref: ClusterRef) -> tuple[ClusterFiles, Any, StateRecord]:
        files = ClusterFiles.of(check_name(ref.name, "cluster", 40))
        spec = read_spec(files)
        if spec is None:
            raise NotFoundError(
                f"no local cluster {ref.name}",
                hint=f"create it: xcli cluster create --provider local --cluster {ref.name} "
                "--tpu-type v5litepod-16",
            )
        status, state = self._status(files)
        if status != "running" or state is None or state.ports is None:
            raise UserError(
                f"local cluster {ref.name} is {status}",
                hint="run the same `xcli cluster create` again to restart it",
            )
        return files, spec, state

    def workers(self, ref: ClusterRef) -> list[Worker]:
        _, spec, state = self._running(ref)
        assert state.ports is not None
        return [
            Worker(
                s,
                w,
                HOST,
                state.ports.ssh[n],
                spec.user,
                f"{ref.name}-s{s}-w{w}",
                HOST,
                accelerator=spec.accelerator,
                profiler_port=state.ports.profiler[n] if state.ports.profiler else None,
            )
            for n, (s, w) in enumerate(spec.layout.workers())
        ]

    def ssh_access(self, ref: ClusterRef) -> SshAccess:
        files, spec, _ = self._running(ref)
        # the cluster writes every worker's key, and rewrites them whenever ports change
        return SshAccess(files.client_key, files.known_hosts, spec.user, pinned=True)

    def describe(self, ref: ClusterRef) -> Mapping[str, Any]:
        files = ClusterFiles.of(check_name(ref.name, "cluster", 40))
        spec = read_spec(files)
        if spec is None:
            raise NotFoundError(
                f"no local cluster {ref.name}", hint="xcli cluster list --provider local"
            )
        status, state = self._status(files)
        info: dict[str, Any] = {
            "name": spec.cluster,
            "provider": "local",
            "accelerator": spec.accelerator,
            "slices": spec.slices,
            "workers_per_slice": spec.workers_per_slice,
            "status": status,
            "supervisor_pid": state.pid if state else None,
            "dir": str(files.root),
            "ssh": {"user": spec.user, "key": str(files.client_key)},
        }
        info["ssh"]["known_hosts"] = str(files.known_hosts)
        if state is not None and state.error:
            info["error"] = state.error
        if state is not None and state.ports is not None:
            info["workers"] = [
                {
                    "worker": f"s{s}/w{w}",
                    "ssh": f"{HOST}:{state.ports.ssh[n]}",
                    "dir": str(files.worker_dir(s, w)),
                    "env": worker_env(spec.layout, state.ports, s, w),
                }
                for n, (s, w) in enumerate(spec.layout.workers())
            ]
        return info


if TYPE_CHECKING:  # mypy checks that LocalProvider has the Provider shape
    _shape: Provider = LocalProvider()
