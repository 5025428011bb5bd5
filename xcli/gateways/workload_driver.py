"""`workload create --detach` on VM-style clusters: a background driver on this machine.

`launch` records what to run in the workload's folder (xcli.vm_runs) and starts
`python -m xcli.gateways.workload_driver FOLDER` in its own session through the process funnel,
so it outlives the CLI. The driver runs the same restart loop as a foreground run (the
broadcast engine, xcli.workload.vm.plan.run_with_restarts), appends every worker's output to
the folder's logs and keeps state.json current. SIGTERM (`workload delete`) stops every
worker and records `stopped`.

The driver holds the SSH sessions, so it lives on the machine that ran `create`: if that
machine goes away, the workload's record says `lost` and `workload delete` stops the workers.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from xcli.errors import UserError
from xcli.gateways import process
from xcli.gateways.ssh.output import OutputSink
from xcli.gateways.workload_runner import BroadcastRunner
from xcli.plan.fanout import SshSettings, Target
from xcli.plan.hang import HangWatch, parse_hang_after
from xcli.plan.steps import WorkerCommand
from xcli.plan.vm_run import VmWorkloadRun, run_with_restarts
from xcli.state_files import private_dir
from xcli.vm_runs import (
    FINISHED,
    MARKS,
    RecordingRunner,
    driver_alive,
    effective_state,
    identity,
    read_state,
    refuse_running,
    write_json,
)


class Stopped(Exception):
    """SIGTERM reached the driver."""


def _commands(items: list[dict[str, Any]]) -> tuple[WorkerCommand, ...]:
    return tuple(WorkerCommand(i["worker"], i["host"], tuple(i["argv"])) for i in items)


def _settings(data: dict[str, Any]) -> SshSettings:
    for key in ("known_hosts", "identity", "control_dir"):
        if data.get(key) is not None:
            data[key] = Path(data[key])
    data["ssh_flags"] = tuple(data.get("ssh_flags", ()))
    data["send_env"] = tuple(data.get("send_env", ()))
    return SshSettings(**data)


def record_run(
    folder: Path,
    step: VmWorkloadRun,
    targets: Sequence[Target],
    settings: SshSettings,
    engine: str,
) -> None:
    """run.json: what the driver runs, and what `workload delete` stops (for either mode)."""
    private_dir(folder)  # owner-only: run.json holds the stop commands `workload delete` runs
    run = {
        "workers": [asdict(w) for w in step.workers],
        "stop": [asdict(w) for w in step.stop],
        "max_restarts": step.max_restarts,
        "hang_after": str(step.hang_after) if step.hang_after is not None else None,
        "dump": [asdict(w) for w in step.dump],
        "targets": [asdict(t) for t in targets],
        "settings": {
            k: (str(v) if isinstance(v, Path) else v) for k, v in asdict(settings).items()
        },
        "engine": engine,
    }
    write_json(folder / "run.json", run)


def launch(
    folder: Path,
    step: VmWorkloadRun,
    targets: Sequence[Target],
    settings: SshSettings,
    engine: str,
    meta: dict[str, Any],
) -> int:
    """Record the run and start its driver; refuses a name whose workload still runs."""
    refuse_running(folder)
    private_dir(folder / "logs")
    for old_log in (*(folder / "logs").glob("*.log"), *(folder / "logs").glob("*.times")):
        old_log.unlink()
    (folder / MARKS).unlink(missing_ok=True)
    record_run(folder, step, targets, settings, engine)
    write_json(folder / "state.json", {**meta, "state": "starting", "created": time.time()})
    argv = [sys.executable, "-m", "xcli.gateways.workload_driver", str(folder)]
    pid = process.detach(argv, str(folder / "driver.log"))
    state = read_state(folder)
    if state.get("state") == "starting":  # the driver may already have taken over
        write_json(folder / "state.json", {**state, **identity(pid)})
    return pid


def _runner(folder: Path, run: dict[str, Any]) -> BroadcastRunner:
    targets = [Target(**t) for t in run["targets"]]
    sink = OutputSink(None, None, folder / "logs", append=True, marks=folder / MARKS, times=True)
    rule = parse_hang_after(run.get("hang_after"))
    watch = HangWatch(rule) if rule is not None else None
    dump = _commands(run.get("dump") or [])
    settings = _settings(dict(run["settings"]))
    return BroadcastRunner(targets, settings, sink, run["engine"], watch, dump)


def drive(folder: Path) -> int:
    run = read_run(folder)
    workers, stop = _commands(run["workers"]), _commands(run["stop"])
    total, max_restarts = len(workers), run["max_restarts"]
    runner = RecordingRunner(_runner(folder, run), folder, read_state(folder), total, max_restarts)
    record = runner.start()

    def on_term(_sig: int, _frame: Any) -> None:
        raise Stopped

    signal.signal(signal.SIGTERM, on_term)
    try:
        outcome = run_with_restarts(
            lambda _n: runner.run(workers), lambda: runner.stop(stop), total, max_restarts
        )
    except Stopped:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        runner.stop(stop)
        record.finish(None, stopped=True)
        return 143
    record.finish(outcome)
    return 0 if outcome.ok else 1


def stop(folder: Path, timeout: float = 60.0) -> None:
    """Stop a workload: TERM its driver (which stops the workers) and wait for it; then run
    the stop commands once more from here, which also covers a driver that is gone."""
    state = read_state(folder)
    # only the process that drives this run, never a recycled pid (driver_alive checks it)
    if driver_alive(state) and effective_state(state) not in FINISHED:
        pid = int(state["pid"])
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + timeout
        while driver_alive(state) and time.monotonic() < deadline:
            time.sleep(0.05)
        if driver_alive(state):
            os.killpg(pid, signal.SIGKILL)
    run_file = folder / "run.json"
    if run_file.is_file():
        run = read_run(folder)
        runner = _runner(folder, run)
        runner.stop(_commands(run["stop"]))


def read_run(folder: Path) -> dict[str, Any]:
    """run.json, checked: a damaged one is one UserError naming it (issue 37: exit 3)."""
    path = folder / "run.json"
    try:
        run = json.loads(path.read_bytes().decode("utf-8"))
        if not isinstance(run, dict):
            raise ValueError("not a JSON object")
        _commands(run["stop"])
        [Target(**t) for t in run["targets"]]
        dict(run["settings"])
        str(run["engine"])
    except (ValueError, KeyError, TypeError) as exc:
        cluster = folder.parent.name
        raise UserError(
            f"the record {path} is damaged ({type(exc).__name__}): xcli cannot tell what to "
            f"stop on the workers of workload {folder.name}",
            hint=f"see what still runs with `xcli ssh --cluster {cluster} --worker=all "
            f"--command 'ps -ef'`, then remove {folder} to forget the workload",
        ) from None
    return run


if __name__ == "__main__":
    sys.exit(drive(Path(sys.argv[1])))
