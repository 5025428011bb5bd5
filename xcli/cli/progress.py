"""Progress while a plan runs, and the summary after it.

On a terminal: a live table of running steps with elapsed time (rich). Elsewhere (CI logs,
pipes): one plain line per change, never a redraw.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from typing import Any

import click

from xcli.execute.result import RunResult
from xcli.plan.contract import Reporter, StepResult
from xcli.plan.model import Step


def _elapsed(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    return f"{minutes}m{secs:02d}s" if minutes else f"{secs}s"


# Piped or logged output: a step's progress at most this often (a 256-worker local create
# reports each worker that answers; a log wants a few lines, not one per worker).
PROGRESS_EVERY = 10.0


class LineReporter:
    """One line per event, on stderr, safe to call from many threads. Progress is sampled: a
    step says how it goes once it has run PROGRESS_EVERY seconds, then at most that often."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._lock = threading.Lock()
        self._clock = clock
        self._start: dict[str, float] = {}
        self._last: dict[str, str] = {}
        self._said: dict[str, float] = {}

    def _say(self, text: str) -> None:
        with self._lock:
            click.echo(text, err=True)

    def started(self, step: Step) -> None:
        self._start[step.id] = self._said[step.id] = self._clock()
        self._say(f"[{step.id}] {step.summary} ...")

    def progress(self, step: Step, message: str) -> None:
        now = self._clock()
        if self._last.get(step.id) == message or now - self._said.get(step.id, now) < (
            PROGRESS_EVERY
        ):
            return
        self._last[step.id] = message
        self._said[step.id] = now
        self._say(f"[{step.id}] {message} ({_elapsed(now - self._start.get(step.id, now))})")

    def finished(self, result: StepResult) -> None:
        step = result.step
        if result.status == "ok":
            note = f": {result.reason}" if result.reason else ""
            self._say(f"[{step.id}] done in {_elapsed(result.seconds)}{note}")
        elif result.status == "failed":
            self._say(f"[{step.id}] FAILED: {_message(result.error)}")
        else:
            self._say(f"[{step.id}] {result.status}: {result.reason}")


class LiveTableReporter(LineReporter):
    """A redrawn table of the steps in flight, for terminals."""

    def __init__(self) -> None:
        super().__init__()
        from rich.console import Console
        from rich.live import Live

        self._state: dict[str, tuple[Step, str]] = {}
        self._console = Console(stderr=True)
        self._live = Live(
            console=self._console, refresh_per_second=2, transient=True, get_renderable=self._table
        )
        self._live.start()

    def _table(self) -> Any:
        from rich.table import Table

        table = Table(box=None, show_header=False)
        now = time.monotonic()
        with self._lock:
            rows = list(self._state.values())
        for step, message in rows:
            since = now - self._start.get(step.id, now)
            table.add_row(step.id, message or step.summary, _elapsed(since))
        return table

    def _say(self, text: str) -> None:
        with self._lock:
            self._console.print(text, highlight=False, markup=False)

    def started(self, step: Step) -> None:
        self._start[step.id] = time.monotonic()
        with self._lock:
            self._state[step.id] = (step, "")

    def progress(self, step: Step, message: str) -> None:
        with self._lock:
            self._state[step.id] = (step, message)

    def finished(self, result: StepResult) -> None:
        with self._lock:
            self._state.pop(result.step.id, None)
        super().finished(result)

    def stop(self) -> None:
        self._live.stop()


def close_reporter(reporter: Reporter) -> None:
    stop = getattr(reporter, "stop", None)
    if stop is not None:
        stop()


def make_reporter(output: str) -> Reporter:
    from xcli.cli.table import colour

    # The live table redraws with escape codes: only on a terminal that wants them (NO_COLOR).
    if output == "text" and colour(sys.stderr):
        return LiveTableReporter()
    return LineReporter()


def _message(error: BaseException | None) -> str:
    if error is None:
        return "unknown error"
    hint = getattr(error, "hint", "")
    return f"{error}" + (f" (hint: {hint})" if hint else "")


def render_summary(result: RunResult, output: str) -> None:
    if output != "text":
        from xcli.cli.common import emit

        emit(
            output,
            {
                "title": result.title,
                "ok": result.ok,
                "steps": [
                    {
                        "id": r.step.id,
                        "status": r.status,
                        "seconds": round(r.seconds, 3),
                        "outputs": r.outputs,
                        "reason": _message(r.error) if r.error else r.reason,
                    }
                    for r in result.results.values()
                ],
            },
        )
        return
    done = result.by_status("ok")
    click.echo(f"{result.title}: {len(done)} of {len(result.results)} steps done")
    for r in result.results.values():
        if r.status == "failed":
            click.echo(f"  FAILED  {r.step.id}: {_message(r.error)}")
        elif r.status in ("skipped", "cancelled"):
            click.echo(f"  {r.status.upper():8}{r.step.id}: {r.reason}")
