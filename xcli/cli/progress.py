"""Progress while a plan runs, and the summary after it.

On a terminal: a live table of running steps with elapsed time (rich). Elsewhere (CI logs,
pipes): one plain line per change, never a redraw.
"""

from __future__ import annotations

import re
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


def _shape(message: str) -> str:
    """A message with its numbers taken out: "17/256 workers answer" and "18/256 workers answer"
    are one counter moving; "already running" and "cleaned a stale supervisor" are news."""
    return re.sub(r"\d+", "#", message)


class LineReporter:
    """One line per event, on stderr, safe to call from many threads. Progress is sampled: the
    first message of each kind (its shape: numbers aside) is said at once, because it is news;
    a counter moving (the same shape again) is said at most every PROGRESS_EVERY seconds."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._lock = threading.Lock()
        self._clock = clock
        self._start: dict[str, float] = {}
        self._last: dict[str, str] = {}
        self._said: dict[str, float] = {}
        self._shapes: dict[str, set[str]] = {}

    def _say(self, text: str) -> None:
        with self._lock:
            click.echo(text, err=True)

    def started(self, step: Step) -> None:
        self._start[step.id] = self._said[step.id] = self._clock()
        self._shapes[step.id] = set()
        self._last.pop(step.id, None)
        self._say(f"[{step.id}] {step.summary} ...")

    def progress(self, step: Step, message: str) -> None:
        now = self._clock()
        if self._last.get(step.id) == message:
            return
        shapes = self._shapes.setdefault(step.id, set())
        news = _shape(message) not in shapes
        if not news and now - self._said.get(step.id, now) < PROGRESS_EVERY:
            return
        shapes.add(_shape(message))
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
    """A redrawn table of the steps in flight, for terminals. Whatever else reaches the
    terminal while it is up goes above it, never into its lines (xcli/terminal.py): rich's
    own redirect for text written to sys.stdout and sys.stderr, `above` for the raw worker
    output of the SSH sink."""

    def __init__(self, refresh_per_second: float = 2) -> None:
        super().__init__()
        from rich.console import Console
        from rich.live import Live

        from xcli import terminal

        self._state: dict[str, tuple[Step, str]] = {}
        self._console = Console(stderr=True)
        self._live = Live(
            console=self._console,
            refresh_per_second=refresh_per_second,
            transient=True,
            get_renderable=self._table,
        )
        self._live.start()
        self._stop_above = terminal.start(self)

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

    def above(self, write: Callable[[], None]) -> None:
        """Clear the table, `write`, draw the table again: all under the live display's lock,
        which its refresh thread takes to redraw, so nothing is drawn in between. rich has no
        public call for output that does not pass through its console (the sink writes bytes
        to the stdout descriptor), so this uses the two pieces its own `console.print` does:
        the live render's `position_cursor` (erase the table's lines, cursor to their start),
        then a redraw with no lines to erase (the written lines took their place)."""
        live = self._live
        with live._lock:
            render = getattr(live, "_live_render", None)
            if not live.is_started or render is None:
                write()
                return
            self._console.control(render.position_cursor())
            try:
                write()
            finally:
                render._shape = None  # nothing of the old table is left on the screen
                live.refresh()

    def _say(self, text: str) -> None:
        # console.print goes above the table by itself (the live display is its render hook);
        # not under self._lock: the refresh thread takes the live lock, then self._lock
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
        self._stop_above()
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
                **({"links": result.links} if result.links else {}),
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
    for name, url in result.links.items():  # where to follow what the run made (XPK prints these)
        click.echo(f"  {name}: {url}")
