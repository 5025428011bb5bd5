"""`within`: asyncio.wait_for without its lost cancellation.

On Python 3.10 and 3.11, `asyncio.wait_for` swallows a cancellation that arrives while the
awaited thing completes: it returns the result and the caller's task goes on as if never
cancelled (python/cpython#86296, fixed in 3.12 when wait_for was rebuilt on
`asyncio.timeout`). A fan-out whose reader went away (`xcli ssh ... | head -1`) cancels every
worker's task; a task that lost its cancellation kept pumping output and the run never ended
(issue 37). `within` waits with `asyncio.wait`, which never consumes the caller's cancellation,
and cancels what it waited for on a timeout or when the caller is cancelled.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TypeVar

T = TypeVar("T")
CANCEL_GRACE = 5.0  # seconds a cancelled wait gives what it waited for to finish


async def within(awaitable: Awaitable[T], timeout: float | None) -> T:
    """The awaitable's result; asyncio.TimeoutError after `timeout` seconds (it is then
    cancelled); a cancellation of the caller always propagates (and cancels it too)."""
    task = asyncio.ensure_future(awaitable)
    try:
        done, _ = await asyncio.wait({task}, timeout=timeout)
    except asyncio.CancelledError:
        task.cancel()
        # as wait_for does: let it finish its cancellation (close its transports) before the
        # caller goes on, but for a bounded time, so a task that ignores it cannot hold us
        await asyncio.wait({task}, timeout=CANCEL_GRACE)
        raise
    if not done:
        task.cancel()
        await asyncio.wait({task})  # let it finish its cancellation before going on
        raise asyncio.TimeoutError
    return task.result()
