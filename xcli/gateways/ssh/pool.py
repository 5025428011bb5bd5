"""The broadcast scheduler both SSH engines share: a sliding window, retries, deadline, Ctrl-C.

An engine only knows how to make one attempt on one worker (`SshEngine.attempt`). Here every
worker gets a task; a semaphore of `batch_size` keeps at most that many attempts in flight (a
sliding window: a slot frees as soon as any worker finishes, unlike fixed batches). Connection
failures are retried with backoff until `retry_for` seconds after that worker's first attempt
(on a large slice the last workers start long after the first), never past the overall
deadline; a remote exit code never is retried. Each attempt has its own connect timeout (in the
engine); `timeout` bounds the whole run; Ctrl-C (or the `cancelled` event) stops it. Either
way the processes and channels still open are stopped and every worker gets an outcome.
The engine stays open (its connections reusable) until its owner calls `aclose()`.

The window never needs more file descriptors than the process may open: the soft
RLIMIT_NOFILE is raised as far as the hard limit allows, and the window narrowed to what is
left (the result's notes say so). Through a jump host, handshakes also pass a HandshakeGate
(gateways/ssh/gate.py).
"""

from __future__ import annotations

import asyncio
import os
import resource
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from xcli.gateways.ssh.gate import HandshakeGate
from xcli.gateways.ssh.output import OutputSink, WorkerStream
from xcli.plan.fanout import Action, Broadcast, Download
from xcli.plan.fanout_result import FanoutResult, Status, WorkerOutcome

FDS_PER_WORKER = 4  # three pipes per ssh (or a socket), a log file
FDS_RESERVED = 64  # the interpreter's own, the event loop's, what the caller holds
# Handshakes in flight at once when the window is wider (--batch-size all, a workload's whole
# slice): 2,304 handshakes started together queue behind each other on the client's CPU
# (asyncssh: one core) and miss their connect timeout, as measured on the emulator (docs/ssh.md,
# Large slices); 128 at once keep each one's wait well inside it while every command runs.
MAX_HANDSHAKES = 128


@dataclass(frozen=True)
class Attempt:
    """What one try on one worker came to."""

    status: Status
    exit_code: int | None = None
    detail: str = ""
    retryable: bool = False
    reached: bool = False

    @staticmethod
    def finished(code: int) -> Attempt:
        """The remote command ran and exited with `code`."""
        return Attempt("ok", 0, reached=True) if code == 0 else Attempt("exit", code, reached=True)


class SshEngine(Protocol):
    name: str

    async def attempt(self, step: Broadcast, index: int, stream: WorkerStream) -> Attempt: ...

    def connected(self, step: Broadcast, index: int) -> bool:
        """Whether a worker whose attempt is still running has an open SSH connection (asked
        when the deadline stops it, to tell a command's timeout from a connection's)."""
        ...

    def spare_fds(self, count: int) -> None:
        """How many file descriptors the pool leaves beyond its window: an engine that keeps
        connections open after their worker's attempt (for a later run) keeps at most so many."""
        ...

    async def aclose(self) -> None: ...


def raise_open_file_limit(workers: int) -> None:
    """Lift the soft RLIMIT_NOFILE towards the hard limit when the window needs it."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = FDS_RESERVED + FDS_PER_WORKER * workers
    if soft != resource.RLIM_INFINITY and soft < want:
        new = want if hard == resource.RLIM_INFINITY else min(hard, max(want, soft))
        resource.setrlimit(resource.RLIMIT_NOFILE, (new, hard))


def open_fds() -> int:
    """File descriptors this process holds now (Linux and macOS list them; else a guess)."""
    for folder in ("/proc/self/fd", "/dev/fd"):
        try:
            return len(os.listdir(folder))
        except OSError:
            continue
    return FDS_RESERVED


def fitting_window(window: int) -> tuple[int, str | None, int]:
    """Raise the open-file limit for `window` workers at once; then the window that fits in
    what is left of it, a note when that is less than asked, and the descriptors left over."""
    raise_open_file_limit(window)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return window, None, 1 << 20
    room = soft - open_fds() - FDS_RESERVED
    fits = max(1, room // FDS_PER_WORKER)
    if fits >= window:
        return window, None, room - window * FDS_PER_WORKER
    return (
        fits,
        (
            f"{fits} workers at once, not {window}: the open-file limit is {soft} (hard limit "
            f"{hard}); raise the hard limit (ulimit -Hn) for a wider window"
        ),
        0,
    )


async def run_pool(
    step: Broadcast,
    engine: SshEngine,
    sink: OutputSink,
    cancelled: threading.Event | None = None,
    on_outcome: Callable[[WorkerOutcome], None] | None = None,
) -> FanoutResult:
    """Run the step on every target; `on_outcome` hears of each worker as soon as it ends."""
    start = time.monotonic()
    size, narrowed, spare = fitting_window(min(step.batch_size, len(step.targets)) or 1)
    engine.spare_fds(spare)
    window = asyncio.Semaphore(size)
    gate = _gate(step, size)
    outcomes: dict[int, WorkerOutcome] = {}
    started: dict[int, WorkerStream] = {}
    began: dict[int, float] = {}

    async def one(index: int) -> None:
        async with window:
            try:
                stream = sink.stream(step.targets[index].label)
            except OSError as exc:  # its log cannot be created (a full disk)
                label = step.targets[index].label
                outcomes[index] = WorkerOutcome(label, "local error", detail=local_reason(exc))
                if on_outcome is not None:
                    on_outcome(outcomes[index])
                return
            started[index] = stream
            _local_folder(step.action_for(index))
            try:
                outcomes[index] = await _with_retries(step, engine, index, stream, gate, began)
            except Exception as exc:  # this machine's part failed: say what, not "timed out"
                outcomes[index] = _local_error(stream, exc, start)
            finally:
                try:
                    stream.close()
                except OSError as exc:  # the last bytes of the log did not fit on the disk
                    if index in outcomes and outcomes[index].ok:
                        outcomes[index] = _local_error(stream, exc, start)
            if on_outcome is not None:
                on_outcome(outcomes[index])

    tasks = [asyncio.create_task(one(i)) for i in range(len(step.targets))]
    stop = _StopWatch()
    interrupted = await stop.wait(tasks, start, step.timeout, cancelled)
    # asked before the attempts are stopped (stopping closes what the engine looks at)
    open_at_stop = {i for i in started if i not in outcomes and engine.connected(step, i)}
    await _cancel_all(tasks)
    result = FanoutResult([], interrupted=interrupted, log_dir=sink.log_dir)
    result.notes = [n for n in (narrowed, gate.note() if gate else None) if n]
    for i, target in enumerate(step.targets):
        outcome = outcomes.get(i)
        if outcome is None:
            stream = started.get(i)
            # The engine knows when its session opened; failing that, a silent command still
            # running past the connect timeout has reached its worker (the connect timeout
            # covers the TCP connection and the SSH handshake of the attempt, which `began`
            # timed from its start, after any wait for a handshake slot).
            since = began.get(i)
            connected = (
                (stream is not None and stream.connected)
                or i in open_at_stop
                or (since is not None and time.monotonic() - since > step.connect_timeout + 1)
            )
            outcome = _unfinished(target.label, stream, interrupted, start, connected)
        result.outcomes.append(outcome)
    result.seconds = time.monotonic() - start
    return result


def _local_folder(action: Action) -> None:
    """A download into a folder (`DEST/s0-w3/`, scp --worker=all) creates it first, for both
    engines: each worker's files land in their own folder."""
    if isinstance(action, Download) and action.dest.endswith("/"):
        Path(action.dest).mkdir(parents=True, exist_ok=True)


CLEANUP_GRACE = 4.5  # seconds cancelled workers get to clean up before they are cancelled again


async def _cancel_all(tasks: list[asyncio.Task[None]], rounds: int = 10) -> None:
    """Cancel the workers' tasks and wait for them, cancelling again any that went on: on
    Python 3.10 and 3.11 a cancellation can be lost inside a library's asyncio.wait_for
    (python/cpython#86296; asyncssh's connect uses it), and a single cancel then left the run
    waiting for ever (issue 37: `xcli ssh ... | head -1`). The first round gives the tasks
    CLEANUP_GRACE to finish their cleanup (an ssh stopped, its pipes drained: up to twice the
    engines' 2 s grace), which a second cancel would cut short and leave transports open; later
    rounds a second each; after `rounds` whatever still runs is left to the loop's end."""
    pending = {t for t in tasks if not t.done()}
    for n in range(rounds):
        if not pending:
            break
        for task in pending:
            task.cancel()
        _, pending = await asyncio.wait(pending, timeout=CLEANUP_GRACE if n == 0 else 1.0)
    for task in tasks:
        if task.done() and not task.cancelled():
            task.exception()  # retrieved: a worker's error is its outcome, not a loop warning


def _gate(step: Broadcast, window: int) -> HandshakeGate | None:
    """The plan's cap through a jump host (which backs off when refused), else MAX_HANDSHAKES
    for a wider window (no back-off: a refusal there is one worker's, not a shared sshd's)."""
    if step.handshakes:
        return HandshakeGate(step.handshakes, step.through or "")
    if window > MAX_HANDSHAKES:
        return HandshakeGate(MAX_HANDSHAKES, None)
    return None


class _StopWatch:
    """Waits for the tasks, the deadline, the cancelled event or SIGINT, whichever is first."""

    async def wait(
        self,
        tasks: list[asyncio.Task[None]],
        start: float,
        timeout: float | None,
        cancelled: threading.Event | None,
    ) -> bool:
        loop = asyncio.get_running_loop()
        me = asyncio.current_task()
        restore = _on_sigint(loop, lambda: me.cancel() if me else None)
        pending: set[asyncio.Task[None]] = set(tasks)
        try:
            while pending:
                # short: a reader that went away (`| head`) sets `cancelled` from inside the
                # loop, and the run should end at once, not a quarter second later
                slice_ = 0.05 if cancelled is not None else None
                if timeout is not None:
                    left = start + timeout - time.monotonic()
                    if left <= 0:
                        return False
                    slice_ = left if slice_ is None else min(slice_, left)
                _, pending = await asyncio.wait(pending, timeout=slice_)
                if cancelled is not None and cancelled.is_set():
                    return True
            return False
        except asyncio.CancelledError:
            return True
        finally:
            restore()


def _on_sigint(
    loop: asyncio.AbstractEventLoop, callback: Callable[[], object]
) -> Callable[[], None]:
    """Route Ctrl-C to `callback` while the run lasts (main thread only; elsewhere the
    caller's `cancelled` event does that job)."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    previous = signal.getsignal(signal.SIGINT)
    try:
        loop.add_signal_handler(signal.SIGINT, callback)
    except (NotImplementedError, RuntimeError, ValueError):
        return lambda: None

    def restore() -> None:
        loop.remove_signal_handler(signal.SIGINT)
        signal.signal(signal.SIGINT, previous)

    return restore


async def _with_retries(
    step: Broadcast,
    engine: SshEngine,
    index: int,
    stream: WorkerStream,
    gate: HandshakeGate | None,
    attempted: dict[int, float],
) -> WorkerOutcome:
    """Attempts until one is not retryable; `attempted[index]` is when the last one started
    (after any wait at the gate, which the connect timeout does not cover)."""
    began = time.monotonic()
    backoff, tries = 0.5, 0

    async def attempt() -> Attempt:
        attempted[index] = time.monotonic()
        return await engine.attempt(step, index, stream)

    while True:
        tries += 1
        if gate is None:
            result = await attempt()
        else:
            result = await gate.through_gate(
                attempt, lambda: stream.connected or engine.connected(step, index)
            )
        wait = backoff
        if (
            gate is not None
            and gate.backs_off
            and result.retryable
            and result.status == "unreachable"
        ):
            wait = max(wait, await gate.refused())  # the jump host's sshd refused: back off
        elif gate is not None and result.reached:
            await gate.reached()
        if result.retryable and time.monotonic() + wait < began + step.retry_for:
            stream.note(f"{result.status} ({result.detail}); retrying in {wait:.1f}s")
            await asyncio.sleep(wait)
            backoff = min(backoff * 2, 5.0)
            continue
        return WorkerOutcome(
            label=stream.label,
            status=result.status,
            exit_code=result.exit_code,
            detail=result.detail,
            log=stream.log_path,
            attempts=tries,
            seconds=time.monotonic() - began,
            reached=result.reached,
        )


def _local_error(stream: WorkerStream, exc: Exception, start: float) -> WorkerOutcome:
    """A worker whose run failed here (issue 37: a full disk read as "timed out")."""
    return WorkerOutcome(
        label=stream.label,
        status="local error",
        detail=local_reason(exc, stream.log_path),
        log=stream.log_path,
        seconds=time.monotonic() - start,
        reached=stream.saw_stdout,
    )


def local_reason(exc: BaseException, writing: Path | None = None) -> str:
    """What went wrong on this machine, in a few words, with the file it concerns (`writing`:
    the worker's log, when the error names no file: a write, not an open, failed)."""
    import errno

    if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
        where = exc.filename or writing or "a file"
        return f"the disk is full: no space left writing {where}"
    if isinstance(exc, UnicodeError):
        return f"a name or text that is not UTF-8 ({type(exc).__name__}: {str(exc)[:120]})"
    if isinstance(exc, OSError):
        where = f" ({exc.filename})" if exc.filename else ""
        return f"{exc.strerror or exc}{where}"
    return f"{type(exc).__name__}: {str(exc)[:200]}"


def _unfinished(
    label: str,
    stream: WorkerStream | None,
    interrupted: bool,
    start: float,
    connected: bool = False,
) -> WorkerOutcome:
    status: Status = "interrupted" if interrupted else "timed out"
    detail = "still running" if stream is not None else "not started"
    return WorkerOutcome(
        label=label,
        status=status,
        detail=detail,
        log=stream.log_path if stream is not None else None,
        seconds=time.monotonic() - start,
        reached=stream is not None and (stream.saw_stdout or connected),
    )
