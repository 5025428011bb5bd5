"""`workload list|status|logs|wait|delete` of VM-style workloads (queued resources, local), as
recorded on this machine (xcli.vm_runs) by the foreground run or the background
driver, returned as data (xcli/workload/protocol.py). Polling sleeps through the injected
sleep (xcli.gateways.backoff.event_sleep by default), which Ctrl-C ends at once."""

from __future__ import annotations

import heapq
import json
import re
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from xcli.errors import Interrupted, UserError
from xcli.gateways.backoff import Sleep
from xcli.workload.protocol import (
    WORKER_BY_WORKER,
    Deletion,
    Listing,
    LogLine,
    LogView,
    Outcome,
    Report,
    Table,
)
from xcli.workload.stragglers.marks import Arrivals

if TYPE_CHECKING:
    from xcli.log_times import LineClock

POLL = 0.1


def _ago(seconds: float | None) -> str:
    from xcli.spec import format_duration

    return "-" if seconds is None else format_duration(max(0, int(seconds)))


def vm_goodput_report(folder: Path, state: dict[str, Any]) -> dict[str, Any]:
    """`xcli workload goodput` of one run (xcli/workload/goodput/vm.py), as JSON data."""
    from xcli.workload.goodput.compute import compute
    from xcli.workload.goodput.vm import vm_timeline

    return compute(vm_timeline(folder, state)).to_dict()


def _summary(folder: Path) -> dict[str, Any]:
    from xcli.vm_runs import effective_state, read_state
    from xcli.workload.goodput import fractions

    state = read_state(folder)
    now = time.time()
    started, finished = state.get("started"), state.get("finished")
    return {
        "name": folder.name,
        "state": effective_state(state),
        "workers": state.get("workers"),
        "accelerator": state.get("accelerator"),
        "restarts": state.get("restarts", 0),
        "age": _ago(now - state["created"]) if state.get("created") else "-",
        "duration": _ago((finished or now) - started) if started else "-",
        "failure": state.get("failure"),
        **fractions(vm_goodput_report(folder, state)),
    }


def _failure_text(failure: dict[str, Any] | None) -> str:
    if not failure:
        return "-"
    if failure.get("code") is not None:
        return f"worker {failure['worker']} exited with code {failure['code']}"
    return f"worker {failure['worker']}: {failure.get('reason') or 'lost'}"


def vm_list(cluster: str, state: str | None) -> Listing:
    from xcli.vm_runs import runs

    rows = [_summary(f) for f in runs(cluster)]
    rows = [r for r in rows if state is None or r["state"] == state]
    headers = ("NAME", "STATE", "ACCELERATOR", "WORKERS", "RESTARTS", "AGE", "DURATION", "FAILURE")
    cells = tuple(
        (r["name"], r["state"], str(r["accelerator"] or "-"), str(r["workers"] or "-"),
         str(r["restarts"]), r["age"], r["duration"], _failure_text(r["failure"]))
        for r in rows
    )  # fmt: skip
    empty = f"no {state + ' ' if state else ''}workloads on cluster {cluster}"
    return Listing(rows, Table(headers, cells), empty)


def vm_status(cluster: str, name: str) -> Report:
    from xcli.vm_runs import find
    from xcli.workload.goodput.render import summary

    folder, state = find(cluster, name)
    report = {**_summary(folder), "exits": state.get("exits", []), "cluster": cluster}
    report["decisions"] = state.get("attempts", [])
    text: list[str | Table] = [
        f"workload {name} on cluster {cluster}: {report['state']}",
        f"restarts: {report['restarts']} of {state.get('max_restarts', 0)}",
        summary(vm_goodput_report(folder, state)),
        *(f"  {line}" for line in report["decisions"]),
    ]
    if report["state"] in ("failed", "lost") or report["failure"]:
        text.append(f"first failure: {_failure_text(report['failure'])}")
    if report["state"] == "lost":
        text.append("its driver on this machine is gone; `xcli workload delete` stops the workers")
    exits = [e for e in report["exits"] if e["attempt"] == report["restarts"]]
    exits.sort(key=lambda e: tuple(int(n) for n in re.findall(r"\d+", e["worker"])))
    if exits:
        text.append(f"worker exits (attempt {report['restarts']}):")
        cells = tuple(
            (e["worker"], "-" if e["code"] is None else str(e["code"]), e["reason"] or "-")
            for e in exits
        )
        text.append(Table(("WORKER", "EXIT", "REASON"), cells))
    return Report(report, tuple(text))


def vm_goodput(cluster: str, name: str) -> Report:
    from xcli.vm_runs import find
    from xcli.workload.goodput.render import text

    folder, state = find(cluster, name)
    report = vm_goodput_report(folder, state)
    return Report(report, tuple(text(report, name)))


def vm_arrivals(cluster: str, name: str) -> Arrivals:
    """Every worker's arrival marks, from the runner's goodput.jsonl; each worker's address
    from run.json (its VM, or the emulated worker's loopback port)."""
    from xcli.vm_runs import MARKS, find
    from xcli.workload.stragglers.marks import from_runner_lines

    folder, _ = find(cluster, name)
    try:
        run = json.loads((folder / "run.json").read_text())
        hosts = {
            str(t["label"]): str(t["host"])
            + ("" if int(t.get("port") or 22) == 22 else f":{t['port']}")
            for t in run.get("targets") or []
        }
    except (OSError, ValueError, KeyError, TypeError):
        hosts = {}
    try:
        with (folder / MARKS).open(encoding="utf-8", errors="replace") as lines:
            return from_runner_lines(lines, hosts)
    except OSError:
        return from_runner_lines([], hosts)


def _label(path: Path) -> str:
    return path.stem.replace("-", "/")


def _wanted(label: str, worker: str, slice_: str) -> bool:
    m = re.fullmatch(r"(?:s(\d+)/)?w(\d+)", label)
    if m is None:
        return True
    s, w = m.group(1) or "0", m.group(2)
    return worker in ("all", w) and slice_ in ("all", s)


def _key(path: Path) -> tuple[int, ...]:
    return tuple(int(n) for n in re.findall(r"\d+", path.stem))


def vm_logs(
    cluster: str,
    name: str,
    selection: tuple[str, str],
    follow: bool,
    sleep: Sleep,
    view: LogView = WORKER_BY_WORKER,
) -> Iterator[LogLine]:
    """Each worker's log in worker order; `view.merge`: the lines of all workers by the time
    xcli read them (xcli/log_times.py), each poll's new lines merged when following."""
    from xcli.log_times import LineClock
    from xcli.vm_runs import FINISHED, effective_state, find, read_state

    worker, slice_ = selection
    cancelled = threading.Event()  # nobody sets it: in the main thread Ctrl-C raises itself

    folder, _ = find(cluster, name)
    _check_selection(folder, name, worker, slice_)
    logs = folder / "logs" if (folder / "logs").is_dir() else folder
    offsets: dict[Path, int] = {}
    pending: dict[Path, bytes] = {}
    clocks: dict[Path, LineClock] = {}
    while True:
        done = effective_state(read_state(folder)) in FINISHED
        reads = []
        for path in sorted(logs.glob("*.log"), key=_key):
            if not _wanted(_label(path), worker, slice_):
                continue
            clock = None
            if view.timed:
                clock = clocks.setdefault(path, LineClock(path))
                clock.refresh()
            reads.append(_new_lines(path, offsets, pending, not follow or done, clock))
        if view.merge:  # each worker's lines are in time order: merged lazily, memory bounded
            yield from heapq.merge(*reads, key=_when)
        else:
            for lines in reads:
                yield from lines
        if not follow or done:
            return
        sleep(POLL, cancelled)


def _when(line: LogLine) -> float:
    return line.at or 0.0


READ = 1 << 20  # bytes read at a time: memory stays bounded whatever the log's size
MAX_LINE = 1 << 20  # a longer line without a newline is printed in pieces of this size


def _new_lines(
    path: Path,
    offsets: dict[Path, int],
    pending: dict[Path, bytes],
    end: bool,
    clock: LineClock | None = None,
) -> Iterator[LogLine]:
    """The whole lines `path` gained since the last look, READ bytes at a time (issue 26:
    reading the file whole took 274 MB to show a 100 MB log). A partial last line waits for
    its newline, unless `end` (nothing more will come). With a clock, each line has its time."""
    label = _label(path)
    with path.open("rb") as f:
        f.seek(offsets.get(path, 0))
        while chunk := f.read(READ):
            data = pending.pop(path, b"") + chunk
            start = f.tell() - len(data)  # the log's offset of data[0]
            cut = data.rfind(b"\n") + 1
            while len(data) - cut >= MAX_LINE:  # a runaway line: print it in bounded pieces
                cut += MAX_LINE
            yield from _lines(label, data[:cut], start, clock)
            pending[path] = data[cut:]
        offsets[path] = f.tell()
    if end and pending.get(path):
        last = pending.pop(path)
        yield from _lines(label, last + b"\n", offsets[path] - len(last), clock)


def _lines(label: str, data: bytes, start: int, clock: LineClock | None) -> Iterator[LogLine]:
    if not data:
        return
    lines = data.split(b"\n")
    if data.endswith(b"\n"):
        lines.pop()
    at = start
    for raw in lines:
        for piece in range(0, max(1, len(raw)), MAX_LINE):
            # the JSON records of VM runs carry no note field (note=None)
            text = raw[piece : piece + MAX_LINE].decode(errors="replace")
            end = at + min(len(raw), piece + MAX_LINE)  # the offset just after its text
            yield LogLine(f"[{label}]", text, None, clock.at(end) if clock else None)
        at += len(raw) + 1


def _check_selection(folder: Path, name: str, worker: str, slice_: str) -> None:
    """--worker/--slice must name workers this workload runs on (run.json's targets), so a
    typo is an error rather than an empty, successful listing."""
    from xcli.workload.jobset.logs import check_selector

    worker, slice_ = check_selector(worker, "--worker"), check_selector(slice_, "--slice")
    try:
        targets = json.loads((folder / "run.json").read_text())["targets"]
        found = [re.fullmatch(r"(?:s(\d+)/)?w(\d+)", str(t["label"])) for t in targets]
    except (OSError, ValueError, KeyError, TypeError):
        return  # an older or damaged record: print what the log files hold
    pairs = {(int(m.group(1) or 0), int(m.group(2))) for m in found if m is not None}
    if not pairs:
        return
    slices = sorted({s for s, _ in pairs})
    if slice_ != "all" and int(slice_) not in slices:
        raise UserError(
            f"--slice {slice_} is out of range for workload {name}",
            hint=f"it runs on slices {slices[0]}-{slices[-1]}"
            if len(slices) > 1
            else f"it runs on slice {slices[0]} only",
        )
    indexes = sorted({w for s, w in pairs if slice_ in ("all", str(s))})
    if worker != "all" and int(worker) not in indexes:
        raise UserError(
            f"--worker {worker} is out of range for workload {name}",
            hint=f"its workers are {indexes[0]}-{indexes[-1]}"
            if len(indexes) > 1
            else f"it runs on worker {indexes[0]} only",
        )


def vm_wait(
    say: Callable[[str], None],
    cluster: str,
    name: str,
    timeout: tuple[str | None, float | None],  # (as typed, in seconds)
    sleep: Sleep,
) -> Outcome:
    try:
        return _vm_wait(say, cluster, name, timeout, sleep)
    except (KeyboardInterrupt, Interrupted):
        raise Interrupted(
            f"stopped waiting; workload {name} keeps running on cluster {cluster}",
            hint=f"wait again with `xcli workload wait {name} --cluster {cluster}` (same "
            f"--provider), or stop it with `xcli workload delete {name} --cluster {cluster}`",
        ) from None


def _vm_wait(
    say: Callable[[str], None],
    cluster: str,
    name: str,
    timeout: tuple[str | None, float | None],
    sleep: Sleep,
) -> Outcome:
    from xcli.vm_runs import FINISHED, effective_state, find, read_state

    folder, _ = find(cluster, name)
    cancelled = threading.Event()  # nobody sets it: in the main thread Ctrl-C raises itself
    seconds = timeout[1]
    deadline = None if seconds is None else time.monotonic() + seconds
    said = ""
    while True:
        state = effective_state(read_state(folder))
        if state != said:
            say(f"workload {name}: {state}")
            said = state
        if state in FINISHED:
            code = 0 if state == "succeeded" else 1
            break
        if deadline is not None and time.monotonic() >= deadline:
            code = 124
            break
        sleep(POLL, cancelled)
    result = {0: "succeeded", 1: "failed"}.get(code, "timeout")
    data = {"workload": name, "result": result, "state": state, "exit_code": code}
    late = f"workload {name}: still not finished after {timeout[0]}" if code == 124 else None
    return Outcome(code, data, late)


def vm_delete(cluster: str, names: list[str]) -> Deletion:
    """Stop each run's workers and forget its record, once the question is answered."""
    from xcli.state_files import writable
    from xcli.vm_runs import find

    if not names:
        return Deletion(notes=(f"no matching workloads on cluster {cluster}",))
    found = [(n, *find(cluster, n)) for n in names]
    for _, folder, _ in found:  # a record that cannot go is refused before anything stops
        writable(folder.parent)
        writable(folder)

    def finish(say: Callable[[str], None]) -> None:
        from xcli.gateways.workload_driver import stop
        from xcli.state_files import remove_tree

        for name, folder, state in found:
            if state.get("cluster_deleted"):  # nothing left to stop: the workers went with it
                remove_tree(folder)
                say(f"deleted the record of workload {name} (its cluster was deleted)")
                continue
            stop(folder)
            remove_tree(folder)
            say(f"deleted workload {name} (its workers stopped)")

    question = f"Delete workload(s) {', '.join(names)} on cluster {cluster}?"
    return Deletion(question=question, finish=finish)


def vm_select(cluster: str, state: str | None, older_than: float | None) -> list[str]:
    """Names of workloads in `state` (any, when None; `finished`: succeeded or failed) that
    finished more than `older_than` seconds ago."""
    from xcli.vm_runs import effective_state, read_state, runs

    states = ("succeeded", "failed") if state == "finished" else (state,)
    now, names = time.time(), []
    for folder in runs(cluster):
        record = read_state(folder)
        ended = record.get("finished") or record.get("created") or now
        kept = state is None or effective_state(record) in states
        if kept and (older_than is None or now - ended > older_than):
            names.append(folder.name)
    return names
