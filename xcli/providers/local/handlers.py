"""Live handlers of the local provider's steps (LocalAction, dispatched on `action`).

generate_keys, start_supervisor, pin_host_keys, wait_workers (create); stop_supervisor,
remove_state (delete). Each is idempotent, so re-running a create or a delete finishes the job.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import pwd
import secrets
import shutil
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from xcli.errors import InternalError, Interrupted, NotFoundError, UserError
from xcli.plan.contract import StepContext
from xcli.providers.local import keys as local_keys
from xcli.providers.local import process as local_process
from xcli.providers.local.layout import (
    DIR_VAR,
    HOST,
    INSTANCE_VAR,
    ClusterFiles,
    ClusterSpecRecord,
    StateRecord,
    cluster_root,
    ports_from_base,
    read_spec,
    read_state,
    served_shape,
    shape_conflict,
    write_spec,
)
from xcli.state_files import locked

Action = Callable[[Mapping[str, Any], StepContext], Mapping[str, Any]]


def local_user() -> str:
    return pwd.getpwuid(os.getuid()).pw_name


def _files(args: Mapping[str, Any]) -> ClusterFiles:
    files = ClusterFiles.at(str(args["dir"]))
    if files.root.resolve().parent != cluster_root().resolve():
        raise InternalError(f"{args['dir']!r} is not a local cluster folder")
    return files


def supervisor_alive(state: StateRecord) -> bool:
    return (
        local_process.alive(state.pid)
        and local_process.carries(state.pid, state.instance) is not False
    )


def _recorded_groups(files: ClusterFiles) -> list[int]:
    if not files.procs.is_dir():
        return []
    return [int(p.name) for p in files.procs.iterdir() if p.name.isdigit()]


def clean_stale(files: ClusterFiles, state: StateRecord | None) -> list[int]:
    """Kill what a dead (or unrecorded) supervisor left behind and forget its state (keys and
    dirs stay). Without a readable state.json, the folder marker finds the processes."""
    killed = local_process.sweep_cluster(files.root)
    if state is not None:
        killed += local_process.sweep(state.instance, _recorded_groups(files))
    shutil.rmtree(files.procs, ignore_errors=True)
    files.state.unlink(missing_ok=True)
    return sorted(set(killed))


def busy_ports(ports: Sequence[int]) -> list[int]:
    """The ports of `ports` that something on this machine already holds (bind test)."""
    import socket

    busy = []
    for port in ports:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            try:
                sock.bind((HOST, port))
            except OSError:
                busy.append(port)
    return busy


def check_create(spec: ClusterSpecRecord) -> None:
    """Before a live create changes anything: the name must not run another shape, and a
    --base-port range must be free (unless it is this very cluster's)."""
    files = ClusterFiles.of(spec.cluster)
    state = read_state(files) if files.root.is_dir() else None
    if state is not None and state.status == "running" and supervisor_alive(state):
        conflict = shape_conflict(served_shape(files, state), spec)
        if conflict is not None:
            raise UserError(
                f"local cluster {spec.cluster} already runs as {conflict}",
                hint=f"delete it first (xcli cluster delete --provider local --cluster "
                f"{spec.cluster} --yes), or choose another --cluster name",
            )
        return  # the same cluster: create is idempotent, and the ports are its own
    if spec.base_port:
        wanted = ports_from_base(spec.base_port, spec.layout.total).all()
        busy = busy_ports(wanted)
        if busy:
            more = f" (and {len(busy) - 1} more)" if len(busy) > 1 else ""
            raise UserError(
                f"--base-port {spec.base_port}: port {busy[0]}{more} of {wanted[0]}-"
                f"{wanted[-1]} is already in use",
                hint="choose another --base-port, or drop it to use free ports",
            )


def generate_keys(args: Mapping[str, Any], ctx: StepContext) -> Mapping[str, Any]:
    spec, files = _spec(args), _files(args)
    # under the cluster's lock: two creates at once must not both write keys, or the second
    # would replace host keys the first one's supervisor already serves
    with _locked(files):
        return local_keys.generate_keys(files, spec.layout)


def _spec(args: Mapping[str, Any]) -> ClusterSpecRecord:
    base = args.get("base_port")
    return ClusterSpecRecord(
        cluster=str(args["cluster"]),
        accelerator=str(args["accelerator"]),
        slices=int(args["slices"]),
        workers_per_slice=int(args["workers_per_slice"]),
        base_port=int(base) if base else None,
        user=local_user(),
    )


def _outputs(state: StateRecord) -> dict[str, Any]:
    assert state.ports is not None
    return {
        "pid": state.pid,
        "ports": list(state.ports.ssh),
        "megascale_ports": list(state.ports.megascale),
        "jax_port": state.ports.jax,
    }


@contextlib.contextmanager
def _locked(files: ClusterFiles) -> Iterator[None]:
    """The cluster's lock, taken by every step of a create and of a delete: two creates at once
    must not start two supervisors, nor a delete remove a folder a create is filling. It lives
    beside the folder ($XCLI_HOME/local/NAME.lock), not in it: a lock file inside the folder a
    delete removes would let the next create lock a fresh file while a waiter holds the old."""
    with locked(files.root):
        yield


def _deleted_meanwhile(files: ClusterFiles) -> UserError:
    return UserError(
        f"local cluster {files.root.name} was deleted while this create ran",
        hint="run the create again (or keep it deleted: nothing of it was started)",
    )


def start_supervisor(args: Mapping[str, Any], ctx: StepContext) -> Mapping[str, Any]:
    files, spec = _files(args), _spec(args)
    with _locked(files):
        if not files.client_key.is_file():  # the keys step made it: a delete came between
            raise _deleted_meanwhile(files)
        return _start(files, spec, float(args.get("timeout_seconds", 30)), ctx)


def _start(
    files: ClusterFiles, spec: ClusterSpecRecord, timeout: float, ctx: StepContext
) -> Mapping[str, Any]:
    state = read_state(files)
    if state is not None and state.status == "running" and supervisor_alive(state):
        # `cluster create` refuses this before the plan runs (LocalProvider.check_create);
        # checked again here under the lock, for a create that raced another one
        served = served_shape(files, state)
        conflict = shape_conflict(served, spec)
        if conflict is not None:
            raise UserError(
                f"local cluster {spec.cluster} already runs as {conflict}",
                hint=f"delete it first: xcli cluster delete --provider local "
                f"--cluster {spec.cluster} --yes",
            )
        if read_spec(files) is None:
            write_spec(files, spec)  # cluster.json was lost: the shape is the same
        ctx.report(f"already running (supervisor {state.pid})")
        return _outputs(state)
    # also with no readable state.json: a supervisor whose state file was damaged must not
    # keep running beside the new one
    killed = clean_stale(files, state)
    if state is not None or killed:
        ctx.report(f"cleaned a stale supervisor ({len(killed)} leftover processes)")
    write_spec(files, spec)
    return _launch(files, timeout, ctx)


def _launch(files: ClusterFiles, timeout: float, ctx: StepContext) -> Mapping[str, Any]:
    instance = secrets.token_hex(8)
    env = {**os.environ, INSTANCE_VAR: instance, DIR_VAR: str(files.root.resolve())}
    argv = [sys.executable, "-m", "xcli.providers.local.supervisor", str(files.root)]
    proc = local_process.spawn_detached(argv, cwd=files.root, env=env, log=files.log)
    ctx.report(f"supervisor {proc.pid} starting")
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        state = read_state(files)
        if state is not None and state.pid == proc.pid and state.instance == instance:
            if state.status == "running":
                return _outputs(state)
            local_process.stop_supervisor(proc.pid, instance)
            raise UserError(
                f"the local cluster could not start: {state.error}",
                hint="if a port is in use, choose another --base-port (or drop it)",
            )
        if proc.poll() is not None:
            raise UserError(
                f"the supervisor exited with status {proc.returncode} before it was ready",
                hint=f"its log: {files.log}\n{_tail(files.log)}",
            )
        if ctx.cancelled.wait(0.05):  # Ctrl-C: stop what this step started, then say so
            local_process.stop_supervisor(proc.pid, instance)
            raise Interrupted(
                "stopped while the local cluster was starting",
                hint="its supervisor was stopped; run the same command again to create it",
            )
    local_process.stop_supervisor(proc.pid, instance)
    raise UserError(
        f"the supervisor was not ready after {timeout:.0f}s", hint=f"its log: {files.log}"
    )


def _tail(path: Any, lines: int = 5) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


def pin_host_keys(args: Mapping[str, Any], ctx: StepContext) -> Mapping[str, Any]:
    files = _files(args)
    with _locked(files):  # two creates at once write the same file
        if read_state(files) is None:  # the start step wrote it: a delete came between
            raise _deleted_meanwhile(files)
        count = local_keys.pin_host_keys(files.known_hosts, args["ports"], args["host_keys"])
    return {"known_hosts": str(files.known_hosts), "pinned": count}


def wait_workers(args: Mapping[str, Any], ctx: StepContext) -> Mapping[str, Any]:
    from xcli.providers.local.probe import probe_all

    files = _files(args)
    ports = [int(p) for p in args["ports"]]
    timeout = float(args.get("timeout_seconds", 30))
    answered = asyncio.run(
        probe_all(HOST, ports, local_user(), files.client_key, files.known_hosts, timeout, ctx)
    )
    return {"workers": answered}


def stop_supervisor(args: Mapping[str, Any], ctx: StepContext) -> Mapping[str, Any]:
    files = _files(args)
    with _locked(files):  # never while a create of the same cluster runs one of its steps
        return _stop(files, args, ctx)


def _stop(files: ClusterFiles, args: Mapping[str, Any], ctx: StepContext) -> Mapping[str, Any]:
    if not files.root.is_dir():
        # the folder is gone, but processes marked with it may still run
        killed = local_process.sweep_cluster(files.root)
        if not killed:
            raise NotFoundError(
                f"no local cluster {args['cluster']}", hint="xcli cluster list --provider local"
            )
        ctx.report(f"its folder was gone; stopped {len(killed)} leftover processes")
        return {"supervisor": None, "killed": killed}
    state = read_state(files)
    if state is None:
        killed = clean_stale(files, None)
        ctx.report(
            f"state.json was missing or unreadable; stopped {len(killed)} processes "
            "marked with the cluster's folder"
        )
        return {"supervisor": None, "killed": killed}
    was_running = local_process.stop_supervisor(state.pid, state.instance)
    ctx.report(f"supervisor {state.pid} " + ("stopped" if was_running else "was not running"))
    killed = clean_stale(files, state)
    return {"supervisor": state.pid, "was_running": was_running, "killed": killed}


def remove_state(args: Mapping[str, Any], ctx: StepContext) -> Mapping[str, Any]:
    files = _files(args)
    with _locked(files):
        state = read_state(files)
        if state is not None and supervisor_alive(state):  # a create came between the steps
            raise UserError(
                f"local cluster {files.root.name} was created again while this delete ran; "
                "it was left as it is",
                hint="run the delete again to delete the new cluster",
            )
        shutil.rmtree(files.root, ignore_errors=True)
    if files.root.exists():
        raise UserError(f"could not remove {files.root}", hint="remove it by hand")
    return {"removed": str(files.root)}


ACTIONS: dict[str, Action] = {
    "generate_keys": generate_keys,
    "start_supervisor": start_supervisor,
    "pin_host_keys": pin_host_keys,
    "wait_workers": wait_workers,
    "stop_supervisor": stop_supervisor,
    "remove_state": remove_state,
}


def handle(step: Any, ctx: StepContext) -> Mapping[str, Any]:
    """The handler of kind "local" for the local provider's plans."""
    action = ACTIONS.get(step.action)
    if action is None:
        raise InternalError(f"no local action {step.action!r}")
    return action(step.args, ctx)
