"""Retrying refused requests and polling operations, without tight loops and without real sleeps
in tests: the clock, the sleep and the random source are injected.

Polling learns: GKE operations of one kind take about as long as each other (node pools of one
shape), so once one has finished (its server-side startTime..endTime), the next of that kind is
first polled when it should be done. Until then the delays grow geometrically.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TypeVar

from xcli.errors import CloudError, Interrupted

T = TypeVar("T")
Sleep = Callable[[float, threading.Event], None]


def event_sleep(seconds: float, cancelled: threading.Event) -> None:
    """Sleep that wakes up at once when the run is interrupted."""
    if cancelled.wait(seconds):
        raise Interrupted("interrupted while waiting", hint="run the same command again")


@dataclass
class Timing:
    """Clock, sleep and randomness, so tests and benchmarks control time."""

    sleep: Sleep = event_sleep
    clock: Callable[[], float] = time.monotonic
    rand: Callable[[], float] = random.random


@dataclass
class RetryPolicy:
    initial: float = 2.0
    multiplier: float = 2.0
    maximum: float = 60.0
    deadline: float = 1800.0


@dataclass
class PollPolicy:
    # 1 s, then +25 % of the time waited so far: a poll comes at most ~25 % late, and a
    # five-minute operation costs about twenty polls (api_core polls x1.5 up to 20 s).
    initial: float = 1.0
    multiplier: float = 1.25
    maximum: float = 30.0
    estimates: dict[str, float] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def record(self, kind: str, seconds: float) -> None:
        if seconds > 0:
            with self._lock:
                self.estimates[kind] = seconds

    def delays(self, kind: str) -> Iterator[float]:
        """Delays between polls, measured from the start of the operation."""
        with self._lock:
            known = self.estimates.get(kind)
            other = min(self.estimates.values()) if self.estimates else None
        if known is not None:  # poll when it should be done, then in small steps
            yield known * 1.02
            step = max(self.initial, known * 0.05)
        elif other is not None:  # another kind finished: a hint, not a promise
            yield other * 0.8
            yield other * 0.22  # by then it has run as long as the other kind took
            step = other * 0.1
        else:
            step = self.initial
        while True:
            yield step
            step = min(self.maximum, step * self.multiplier)


def retry_busy(
    call: Callable[[], T],
    busy: Callable[[BaseException], bool],
    timing: Timing,
    policy: RetryPolicy,
    cancelled: threading.Event,
    report: Callable[[str], None],
) -> T:
    """Run `call`; while it fails with a `busy` error, back off with full jitter until the
    deadline, then let the last error through."""
    start = timing.clock()
    delay = policy.initial
    attempt = 0
    while True:
        try:
            return call()
        except Exception as exc:
            if not busy(exc):
                raise
            attempt += 1
            wait = delay * (0.5 + timing.rand())
            if timing.clock() - start + wait > policy.deadline:
                raise
            report(f"GKE is busy ({_short(exc)}); retry {attempt} in {wait:.0f}s")
            timing.sleep(wait, cancelled)
            delay = min(policy.maximum, delay * policy.multiplier)


def _short(exc: BaseException) -> str:
    code = getattr(exc, "code", None)
    return f"HTTP {int(code)}" if isinstance(code, int) else type(exc).__name__


def timed_out(what: str, seconds: float) -> CloudError:
    return CloudError(
        f"{what} did not finish within {seconds:.0f}s",
        hint="it may still finish: run the same command again to pick it up",
        retryable=True,
    )
