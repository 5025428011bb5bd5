"""The terminal a live progress display and worker output share (issue 36).

On a terminal, `cli/progress.py` keeps a live table of the running steps at the bottom of the
screen and redraws it in place. Anything else written to that terminal while it is up (the
workers' lines of `workload create` on VMs, of `xcli ssh`) must land above it: written into the
table's last line, a worker's text and the progress text share one line, and the next redraw
erases the wrong rows (issue 36, F7: five such lines in one local run under tmux).

`above(write)` runs `write` with the display cleared and draws it again after, under the
display's own lock, so no redraw falls between the two. With no display up it just runs
`write`. The display registers itself with `start`; this module holds the one reference and
imports nothing of xcli, so the output sink (gateways) and the CLI meet here without either
importing the other.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Protocol


class Display(Protocol):
    def above(self, write: Callable[[], None]) -> None:
        """Run `write` (whole lines to the terminal) with the display out of the way."""


_lock = threading.Lock()
_shown: Display | None = None


def above(write: Callable[[], None]) -> None:
    """Write to the terminal above the live display, if one is up; else just write."""
    with _lock:
        shown = _shown
    if shown is None:
        write()
    else:
        shown.above(write)


def start(display: Display) -> Callable[[], None]:
    """From now on, writes through `above` go above `display`; returns the call that ends it."""
    global _shown
    with _lock:
        before, _shown = _shown, display

    def stop() -> None:
        global _shown
        with _lock:
            if _shown is display:
                _shown = before

    return stop
