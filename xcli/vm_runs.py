"""The record of VM-style workloads (queued-resource, local) on this machine.

One folder per workload, $XCLI_HOME/workloads/<cluster>/<name>/:
  run.json    what runs where (the step's commands, the SSH targets and settings)
  state.json  state (starting|running|succeeded|failed|stopped), the driver's pid, times,
              restarts, every worker exit of every attempt, the first failure that decided
  logs/       one file per worker (w0.log, s1-w0.log), appended across restarts
  goodput.jsonl  every output line with a goodput mark (XCLI_GOODPUT), with the time the runner
              read it; state.json's `timeline` has each attempt's start and each exit's time
  driver.log  the background driver's own output

The driver (xcli.gateways.workload_driver) writes state.json; the read commands only read it.
A `running` record whose driver is gone reads as `lost`.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path
from typing import Any

from xcli import paths
from xcli.errors import NotFoundError, UserError
from xcli.log_times import record, times_path
from xcli.plan.vm_run import Decision, Outcome, WorkerExit, decide
from xcli.state_files import open_private, private_dir, write_private

FINISHED = ("succeeded", "failed", "stopped", "lost")
MARKS = "goodput.jsonl"  # xcli/workload/goodput/vm.py reads it with state.json's timeline


def cluster_dir(cluster: str) -> Path:
    return paths.state_dir() / "workloads" / cluster


def run_dir(cluster: str, name: str) -> Path:
    return cluster_dir(cluster) / name


def write_json(path: Path, value: Any) -> None:
    """Atomically (readers never see half a file), owner-only: it holds the stop commands."""
    write_private(path, json.dumps(value, indent=2, sort_keys=True) + "\n")


def read_state(folder: Path) -> dict[str, Any]:
    """The record's state; {} when it is missing or damaged (not a JSON object)."""
    try:
        data = json.loads((folder / "state.json").read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def identity(pid: int) -> dict[str, Any]:
    """What state.json records of the process that drives a run: its pid and start time."""
    from xcli.gateways.process import start_time

    return {"pid": pid, "pid_start": start_time(pid)}


def driver_alive(state: dict[str, Any]) -> bool:
    """Whether the process state.json names still runs and is the same one (issue 26: a dead
    driver's recycled pid was taken for it and signalled). A record without the start time
    (damaged, or written by an older xcli) names no process that can be told apart: none."""
    from xcli.gateways.process import same_process

    try:
        pid = int(state.get("pid") or 0)
        started = state.get("pid_start")
        return same_process(pid, None if started is None else int(started))
    except (TypeError, ValueError):  # a damaged record: no process of ours to look at
        return False


def effective_state(state: dict[str, Any]) -> str:
    """The recorded state, or `lost` when it should still run but its driver is gone."""
    recorded = str(state.get("state") or "starting")
    if recorded in ("starting", "running") and not driver_alive(state):
        return "lost"
    return recorded


def find(cluster: str, name: str) -> tuple[Path, dict[str, Any]]:
    folder = run_dir(cluster, name)
    state = read_state(folder)
    if not state:
        known = [p.name for p in runs(cluster)]
        raise NotFoundError(
            f"no workload {name} on cluster {cluster} (run from this machine)",
            hint=f"workloads here: {', '.join(known)}" if known else "none was run from here",
        )
    return folder, state


def refuse_running(folder: Path) -> None:
    """A workload of that name that still runs is not replaced behind its back."""
    old = read_state(folder)
    if old and effective_state(old) not in FINISHED:
        name, cluster, provider = folder.name, folder.parent.name, old.get("provider", "local")
        raise UserError(
            f"workload {name} is still running on cluster {cluster}",
            hint=f"stop it first: xcli workload delete {name} --cluster {cluster} "
            f"--provider {provider}",
        )


def runs(cluster: str) -> Iterator[Path]:
    base = cluster_dir(cluster)
    if base.is_dir():
        for folder in sorted(base.iterdir()):
            if (folder / "state.json").is_file():
                yield folder


def running_on(cluster: str, provider: str) -> list[Path]:
    """Records of this cluster's workloads that still run (their driver is alive)."""
    return [
        folder
        for folder in runs(cluster)
        if (state := read_state(folder)).get("provider", "local") == provider
        and effective_state(state) not in FINISHED
    ]


def end_with_cluster(cluster: str, provider: str) -> list[str]:
    """After the cluster is deleted: every record of its workloads says so, and one that was
    still running (its driver gone with the workers) reads `stopped`, not `lost` or `failed`."""
    ended = []
    now = time.time()
    for folder in runs(cluster):
        state = read_state(folder)
        if state.get("provider", "local") != provider:
            continue
        if effective_state(state) not in FINISHED:
            state.update(state="stopped", finished=now)
        state["cluster_deleted"] = now
        write_json(folder / "state.json", state)
        ended.append(folder.name)
    return ended


def forget_ended_with_cluster(cluster: str, provider: str) -> list[str]:
    """When a cluster of this name is created: the records an earlier, deleted cluster of the
    same name left (marked by `end_with_cluster`) are removed, so the new cluster never shows
    the old runs (issue 26). Records of a cluster that was never deleted stay."""
    import shutil

    forgotten = []
    for folder in runs(cluster):
        state = read_state(folder)
        if state.get("provider", "local") == provider and state.get("cluster_deleted"):
            shutil.rmtree(folder, ignore_errors=True)
            forgotten.append(folder.name)
    return forgotten


def exit_dict(attempt: int, e: WorkerExit) -> dict[str, Any]:
    return {"attempt": attempt, **asdict(e)}


class Recorder:
    """state.json, kept current by whoever runs the workload (the background driver)."""

    def __init__(self, folder: Path, pid: int) -> None:
        self.folder = folder
        self.state = read_state(folder)
        self.state.update(state="running", exits=[], attempts=[], restarts=0, timeline=[])
        self.state.update(identity(pid))
        self.state.setdefault("created", time.time())
        self.state["started"] = time.time()
        self._save()

    def _save(self) -> None:
        write_json(self.folder / "state.json", self.state)

    def attempt(self, n: int) -> None:
        self.state["restarts"] = n
        self.state["timeline"].append({"event": "attempt", "attempt": n, "at": time.time()})
        self._save()

    def exit(self, n: int, e: WorkerExit) -> None:
        self.state["exits"].append(exit_dict(n, e))
        self.state["timeline"].append({"event": "exit", **exit_dict(n, e), "at": time.time()})
        self._save()

    def rescheduled(self, n: int, reason: str) -> None:
        self.state["timeline"].append(
            {"event": "reschedule", "attempt": n, "reason": reason, "at": time.time()}
        )
        self._save()

    def decided(self, decision: Decision) -> None:
        self.state["attempts"].append(decision.describe())
        self._save()

    def finish(self, outcome: Outcome | None, stopped: bool = False) -> None:
        if stopped or outcome is None:
            self.state["state"] = "stopped"
        else:
            self.state["state"] = "succeeded" if outcome.ok else "failed"
            self.state["restarts"] = outcome.restarts
            failure = outcome.failure
            self.state["failure"] = asdict(failure) if failure and not outcome.ok else None
        self.state["finished"] = time.time()
        self._save()


class RecordingRunner:
    """A WorkerRunner (xcli.workload.vm.handler) that keeps state.json current as it runs:
    every worker exit, and the restart rule's decisions (the same `decide` the loop applies).
    The record starts at the first `run`, so building one changes nothing."""

    def __init__(
        self, runner: Any, folder: Path, meta: dict[str, Any], total: int, max_restarts: int
    ) -> None:
        self.runner, self.folder, self.meta = runner, folder, meta
        self.total, self.max_restarts = total, max_restarts
        self.recorder: Recorder | None = None
        self.attempt = -1

    def start(self) -> Recorder:
        if self.recorder is None:
            private_dir(self.folder)
            for old in self.folder.glob("logs/*.log"):
                old.unlink()
            (self.folder / MARKS).unlink(missing_ok=True)
            write_json(self.folder / "state.json", {**self.meta, "created": time.time()})
            self.recorder = Recorder(self.folder, os.getpid())
        return self.recorder

    def run(self, commands: Any) -> Iterator[WorkerExit]:
        record = self.start()
        self.attempt += 1
        n = self.attempt
        if n:
            note_restart(self.folder, [c.worker for c in commands], n, self.max_restarts)
        record.attempt(n)
        finished: list[WorkerExit] = []
        for event in self.runner.run(commands):
            record.exit(n, event)
            finished.append(event)
            decision = decide(finished, self.total, n, self.max_restarts)
            if decision.action != "wait":
                if decision.action != "succeed":
                    record.decided(decision)
                if decision.action != "restart":
                    ok = decision.action == "succeed"
                    record.finish(Outcome(ok, n, (decision,)))
            yield event

    def rescheduled(self, reason: str) -> None:
        """--recover re-creates the cluster before this attempt's restart: goodput's cause
        `reschedule` (workload/goodput/vm.py)."""
        if self.recorder is not None:
            self.recorder.rescheduled(self.attempt, reason)

    def retarget(self, targets: Any) -> None:
        self.runner.retarget(targets)

    def stop(self, commands: Any) -> None:
        from xcli.plan.contract import run_cancel_event

        self.runner.stop(commands)
        # Ctrl-C on a foreground run: once the stop commands ran, the workers are stopped for
        # sure (if they fail, the record keeps `running` and reads `lost` once xcli is gone)
        if run_cancel_event().is_set() and self.recorder is not None:
            self.recorder.finish(None, stopped=True)

    def upload(self, commands: Any, data: bytes, dest: str) -> None:
        self.runner.upload(commands, data, dest)


def note_restart(folder: Path, workers: list[str], n: int, max_restarts: int) -> None:
    """A line in every worker's log where a restart begins."""
    for label in workers:
        path = folder / "logs" / (label.replace("/", "-") + ".log")
        with open_private(path) as log:
            log.write(f"xcli: restart {n} of {max_restarts}: every worker starts again\n".encode())
            log.flush()
            end = log.tell()
        if times_path(path).exists():  # the line's time, for --timestamps (xcli/log_times.py)
            with open_private(times_path(path)) as times:
                times.write(record(end, time.time()))
