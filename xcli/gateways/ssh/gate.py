"""How many SSH handshakes may be in flight at once through one jump host, and the back-off.

With a jump host (ProxyJump, `-J`, an IAP ProxyCommand) every worker's handshake starts as a
connection to the same sshd, which counts unauthenticated connections against MaxStartups
(default 10:30:100: from 10 pending on, it drops new ones at random, 30 % at 10, all at 100;
openssh-portable servconf.c, sshd.c should_drop_connection). OpenSSH 9.8 and later also
penalise a source whose pre-auth connections end without logging in (PerSourcePenalties
`noauth`, 1 s each, enforced once 15 s have built up; sshd.c child_reap): a client that
keeps retrying dropped handshakes can lock itself out for minutes.

So a broadcast through a jump host holds a handshake slot from the start of each attempt
until its worker is reached (the engine says so: the stream's `connected` flag or
`SshEngine.connected`), or the attempt ends. The slot count starts at the plan's limit;
each refusal (a retryable connection failure) halves it and pauses new handshakes for a
while (1 s, doubling to 10 s: the `noauth` and `refuseconnection` penalties; refusals during a
pause answer handshakes started before it and change nothing), and every success after that
gives back one slot up to the limit. Commands that are already running
keep running: only handshakes wait.

Without a jump host the same gate, without the back-off, keeps a window wider than
ssh_pool.MAX_HANDSHAKES from starting all its handshakes at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

from xcli.gateways.ssh.waits import within

T = TypeVar("T")
POLL = 0.05  # seconds between looks at whether a worker in handshake has been reached
PAUSE_FIRST, PAUSE_MAX = 1.0, 10.0


class HandshakeGate:
    """A resizable semaphore with a pause, for the handshakes through one jump host."""

    def __init__(self, limit: int, through: str | None) -> None:
        self.limit = limit
        self.through = through or ""
        self.backs_off = through is not None  # a shared sshd (a jump host) is in the way
        self.allowed = limit
        self.refusals = 0
        self.narrowest = limit
        self._busy = 0
        self._pause = PAUSE_FIRST
        self._resume_at = 0.0
        self._changed = asyncio.Condition()

    async def _enter(self) -> None:
        async with self._changed:
            while True:
                wait = self._resume_at - time.monotonic()
                if wait <= 0 and self._busy < self.allowed:
                    self._busy += 1
                    return
                timeout = wait if wait > 0 else None
                with contextlib.suppress(asyncio.TimeoutError):
                    await within(self._changed.wait(), timeout)

    async def _leave(self) -> None:
        async with self._changed:
            self._busy -= 1
            self._changed.notify_all()

    async def through_gate(
        self, attempt: Callable[[], Awaitable[T]], reached: Callable[[], bool]
    ) -> T:
        """Start `attempt()` once a slot is free; hold the slot until `reached()` says the
        worker is reached, or the attempt ends."""
        await self._enter()
        held = True
        task = asyncio.ensure_future(attempt())
        try:
            while not task.done():
                await asyncio.wait({task}, timeout=POLL)
                if held and not task.done() and reached():
                    held = False
                    await self._leave()
            return task.result()
        finally:
            if not task.done():
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
            if held:
                await self._leave()

    async def refused(self) -> float:
        """A handshake was dropped or refused: narrow and pause; how long to wait is returned.
        Refusals during a pause are counted but change nothing: they answer handshakes that
        started before it (one burst is one event)."""
        async with self._changed:
            self.refusals += 1
            now = time.monotonic()
            if now < self._resume_at:
                return self._resume_at - now
            self.allowed = max(1, self.allowed // 2)
            self.narrowest = min(self.narrowest, self.allowed)
            pause = self._pause
            self._resume_at = now + pause
            self._pause = min(self._pause * 2, PAUSE_MAX)
            return pause

    async def reached(self) -> None:
        """A worker was reached: give one slot back (up to the limit)."""
        async with self._changed:
            if self.allowed < self.limit:
                self.allowed += 1
                self._changed.notify_all()
            else:
                self._pause = PAUSE_FIRST

    def note(self) -> str | None:
        """One line for the summary when the jump host refused handshakes."""
        if not self.refusals:
            return None
        return (
            f"{self.through} refused {self.refusals} handshake(s); xcli backed off "
            f"(down to {self.narrowest} at once, limit {self.limit})"
        )
