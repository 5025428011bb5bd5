"""Wait until every emulated worker answers over SSH, exactly as a client will reach it:
the cluster's client key, the pinned host key, a command that must exit 0."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from xcli.errors import Interrupted, UserError

RETRY = 0.1


async def probe(host: str, port: int, user: str, key: Path, known_hosts: Path) -> None:
    import asyncssh

    async with asyncssh.connect(
        host,
        port,
        username=user,
        client_keys=[str(key)],
        known_hosts=str(known_hosts),
        agent_path=None,
        config=[],
        connect_timeout=5,
        login_timeout=5,
    ) as conn:
        result = await conn.run("true", check=False)
        if result.exit_status != 0:
            raise UserError(f"worker on port {port}: `true` exited {result.exit_status}")


async def _until_ready(
    host: str, port: int, user: str, key: Path, known_hosts: Path, deadline: float, ctx: Any
) -> None:
    import asyncssh

    while True:
        try:
            await probe(host, port, user, key, known_hosts)
            return
        except (OSError, asyncio.TimeoutError, asyncssh.ConnectionLost) as exc:
            if time.monotonic() > deadline:
                raise UserError(
                    f"the worker on {host}:{port} did not answer: {exc}",
                    hint="see supervisor.log in the cluster's folder",
                ) from None
            if ctx.cancelled.is_set():  # Ctrl-C: the executor set the run's cancel event
                raise Interrupted(
                    "stopped waiting for the local workers",
                    hint="the local cluster keeps running: run the same command again to "
                    "finish, or delete it with xcli cluster delete --provider local",
                ) from None
            await asyncio.sleep(RETRY)
        except asyncssh.HostKeyNotVerifiable as exc:
            raise UserError(
                f"the worker on {host}:{port} has an unexpected host key: {exc}",
                hint="another program may hold this port; delete and create the cluster again",
            ) from None
        except asyncssh.PermissionDenied as exc:
            raise UserError(
                f"the worker on {host}:{port} refused the cluster's key: {exc}",
                hint="another program may hold this port; delete and create the cluster again",
            ) from None


async def probe_all(
    host: str,
    ports: Sequence[int],
    user: str,
    key: Path,
    known_hosts: Path,
    timeout: float,
    ctx: Any,
) -> int:
    """Probe every port concurrently (at most 32 at once); returns how many answered."""
    deadline = time.monotonic() + timeout
    window = asyncio.Semaphore(32)
    done = 0

    async def one(port: int) -> None:
        nonlocal done
        async with window:
            await _until_ready(host, port, user, key, known_hosts, deadline, ctx)
        done += 1
        ctx.report(f"{done}/{len(ports)} workers answer")

    await asyncio.gather(*(one(p) for p in ports))
    return done
