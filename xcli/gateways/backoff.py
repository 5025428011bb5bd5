"""The one way xcli waits and retries: tenacity, sleeping through one cancellable sleep.

Every wait in xcli (GKE and Compute operations, GKE and Kubernetes readiness, queued-resource
states, SSH keys and host keys on TPU VMs, workload waits) goes through `retry_call` (a call
that fails with an error worth retrying) or `poll` (a read repeated until it answers "done").
Both are tenacity.Retrying (https://tenacity.readthedocs.io/) with three things injected:
- the sleep, `event_sleep`: it waits on the run's cancel event, so a Ctrl-C (which sets that
  event for steps running in threads, or raises KeyboardInterrupt in the main thread) ends
  the wait at once with `Interrupted`;
- the clock, so budgets count time the way tests and benchmarks control it;
- the random source for jitter.

Budgets do not stack: every Google client call (GAPIC or raw REST) is sent with `retry=None`
and an explicit `timeout=`, so google-api-core's own default retry (e.g. 20 s on 503 for GKE
reads) never runs underneath xcli's. Failing to reach a host at all (DNS, refused, a dead
proxy) is retried only for TRANSPORT_BUDGET seconds, whatever the call's own budget.

Polling learns: GKE operations of one kind take about as long as each other (node pools of one
shape), so once one has finished (its server-side startTime..endTime), the next of that kind is
first polled when it should be done. Until then the delays grow geometrically.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, TypeVar

from xcli.errors import CloudError, Interrupted

T = TypeVar("T")
Sleep = Callable[[float, threading.Event], None]

# Seconds spent retrying a host that cannot be reached at all before saying so.
TRANSPORT_BUDGET = 8.0
# Seconds spent retrying connections that reached the host and then dropped (resets, closed
# keep-alives) in a step that is already under way: the operation goes on on the server, so a
# flaky link is ridden out for minutes, not TRANSPORT_BUDGET's 8 s (issue 37).
RESET_BUDGET = 180.0


def event_sleep(seconds: float, cancelled: threading.Event) -> None:
    """Sleep that ends at once when the run is interrupted.

    In a step's thread the executor sets `cancelled` on Ctrl-C; in the main thread the wait
    itself is interrupted by SIGINT (Event.wait is, on POSIX) and KeyboardInterrupt propagates.
    """
    if cancelled.wait(seconds):
        raise Interrupted("interrupted while waiting", hint="run the same command again")


def _utcnow() -> datetime:
    return datetime.now(timezone.utc)


def _sleeper(timing: Timing, cancelled: threading.Event) -> Callable[[float], None]:
    """tenacity's sleep: the injected one, then a check, so a fake sleep honours Ctrl-C too."""

    def sleep(seconds: float) -> None:
        timing.sleep(seconds, cancelled)
        if cancelled.is_set():
            raise Interrupted("interrupted while waiting", hint="run the same command again")

    return sleep


def current_cancel() -> threading.Event:
    """For a retry not handed a step's context: the cancel event of the run whose step this
    thread carries out (set on Ctrl-C), else, in the main thread where Ctrl-C raises by
    itself, an event nobody sets."""
    from xcli.plan.contract import run_cancel_event

    return run_cancel_event()


@dataclass
class Timing:
    """Clock, sleep and randomness, so tests and benchmarks control time."""

    sleep: Sleep = event_sleep
    clock: Callable[[], float] = time.monotonic
    rand: Callable[[], float] = random.random
    now: Callable[[], datetime] = _utcnow  # wall clock: ages and durations shown to people


@dataclass
class RetryPolicy:
    initial: float = 2.0
    multiplier: float = 2.0
    maximum: float = 60.0
    deadline: float = 1800.0
    transport_deadline: float = TRANSPORT_BUDGET
    reset_deadline: float = RESET_BUDGET


# Reads (describe, list, one poll of a state) retry busy answers briefly: a person is waiting.
READ_POLICY = RetryPolicy(initial=1.0, deadline=TRANSPORT_BUDGET)


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


def growing(initial: float, multiplier: float, maximum: float) -> Iterator[float]:
    """initial, initial*multiplier, ... capped at maximum: the usual poll delays."""
    delay = initial
    while True:
        yield delay
        delay = min(maximum, delay * multiplier)


def is_transport(exc: BaseException) -> bool:
    """The host was not reached at all (DNS, refused, reset, proxy, timeout)."""
    from xcli.gateways.ssh.reach import is_unreachable

    return is_unreachable(exc)


def is_reset(exc: BaseException) -> bool:
    """The host was reached, then the connection dropped."""
    from xcli.gateways.ssh.reach import is_reset as dropped

    return dropped(exc)


def retry_call(
    call: Callable[[], T],
    retryable: Callable[[BaseException], bool],
    timing: Timing,
    policy: RetryPolicy,
    cancelled: threading.Event,
    report: Callable[[str], None],
    what: str = "busy",
) -> T:
    """Run `call`; while it fails with a `retryable` error, back off (exponential, jittered)
    until the policy's deadline (TRANSPORT_BUDGET for a host that cannot be reached), then
    let the last error through."""
    import tenacity

    start = timing.clock()
    base = tenacity.wait_exponential(
        multiplier=policy.initial, exp_base=policy.multiplier, max=policy.maximum
    )

    def wait(state: tenacity.RetryCallState) -> float:
        return float(base(state)) * (0.5 + timing.rand())

    def stop(state: tenacity.RetryCallState) -> bool:
        exc = state.outcome.exception() if state.outcome else None
        limit = policy.deadline
        if exc is not None and is_reset(exc):
            limit = min(limit, policy.reset_deadline)
        elif exc is not None and is_transport(exc):
            limit = min(limit, policy.transport_deadline)
        return timing.clock() - start + (state.upcoming_sleep or 0.0) > limit

    def before_sleep(state: tenacity.RetryCallState) -> None:
        exc = state.outcome.exception() if state.outcome else None
        why = _short(exc) if exc is not None else "no answer"
        report(f"{what} ({why}); retrying in {state.upcoming_sleep:.0f}s ({state.attempt_number})")

    retrying = tenacity.Retrying(
        sleep=_sleeper(timing, cancelled),
        # KeyboardInterrupt and the like are never retried, whatever `retryable` says
        retry=tenacity.retry_if_exception(lambda e: isinstance(e, Exception) and retryable(e)),
        wait=wait,
        stop=stop,
        before_sleep=before_sleep,
        reraise=True,
    )
    return retrying(call)


def retry_busy(
    call: Callable[[], T],
    busy: Callable[[BaseException], bool],
    timing: Timing,
    policy: RetryPolicy,
    cancelled: threading.Event,
    report: Callable[[str], None],
) -> T:
    """retry_call for GKE and Compute requests: 'GKE is busy' is what a person sees."""
    return retry_call(call, busy, timing, policy, cancelled, report, what="GKE is busy")


def poll(
    check: Callable[[], T | None],
    *,
    delays: Iterable[float],
    timeout: float,
    timing: Timing,
    cancelled: threading.Event,
    on_timeout: Callable[[float], BaseException],
    first_wait: bool = False,
) -> T:
    """Call `check` until it returns something other than None, sleeping the next of `delays`
    in between; raise on_timeout(seconds waited) once the next sleep would pass `timeout`.

    `check` raising ends the wait with that error. With `first_wait`, sleep before the first
    check (an operation just started is not done yet).
    """
    import tenacity

    start = timing.clock()
    steps = iter(delays)
    if first_wait:
        _sleeper(timing, cancelled)(next(steps))

    def stop(state: tenacity.RetryCallState) -> bool:
        return timing.clock() - start + (state.upcoming_sleep or 0.0) > timeout

    def give_up(state: tenacity.RetryCallState) -> Any:
        raise on_timeout(timing.clock() - start)

    retrying = tenacity.Retrying(
        sleep=_sleeper(timing, cancelled),
        retry=tenacity.retry_if_result(lambda answer: answer is None),
        wait=lambda _state: next(steps),
        stop=stop,
        retry_error_callback=give_up,
        reraise=True,
    )
    answer = retrying(check)
    assert answer is not None  # tenacity retries None until give_up raises
    return answer


def _short(exc: BaseException) -> str:
    code = getattr(exc, "code", None)
    if isinstance(code, int):
        return f"HTTP {code}"
    if is_reset(exc):
        return "connection reset"
    if is_transport(exc):
        return "cannot connect"
    message = getattr(exc, "message", None)  # an XcliError: its one line says it best
    return message[:160] if isinstance(message, str) and message else type(exc).__name__


def timed_out(what: str, seconds: float) -> CloudError:
    return CloudError(
        f"{what} did not finish within {seconds:.0f}s",
        hint="it may still finish: run the same command again to pick it up",
        retryable=True,
    )
