"""No lost cancellation (issue 37, Faults): `xcli ssh ... | head -1` hung on Python 3.10 and
3.11 because asyncio.wait_for can swallow a cancellation (python/cpython#86296). `within`
never does, and the pool cancels again a worker task that went on."""

from __future__ import annotations

import asyncio
import contextlib
import io
import sys
import threading
import time
from pathlib import Path

import pytest

from xcli.gateways.ssh.output import OutputSink, WorkerStream
from xcli.gateways.ssh.pool import Attempt, run_pool
from xcli.gateways.ssh.waits import within
from xcli.plan.fanout import Broadcast, Exec, SshSettings, Target, plan_broadcast


async def _cancel_as_it_completes(waiter: object) -> str:
    """The race of cpython#86296: the awaited future completes in the same loop turn as the
    waiting task is cancelled."""
    loop = asyncio.get_running_loop()
    fut: asyncio.Future[int] = loop.create_future()
    task = asyncio.create_task(waiter(fut))  # type: ignore[operator]
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    fut.set_result(1)
    task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        return "cancelled"
    return "cancellation lost"


def test_within_never_loses_a_cancellation() -> None:
    assert asyncio.run(_cancel_as_it_completes(lambda f: within(f, 10))) == "cancelled"


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="fixed in 3.12 (cpython#86296)")
def test_the_race_is_real_with_asyncio_wait_for_here() -> None:
    """What `within` replaces: on this Python, wait_for loses it (so the test above can fail)."""
    got = asyncio.run(_cancel_as_it_completes(lambda f: asyncio.wait_for(f, 10)))
    assert got == "cancellation lost"


def test_within_times_out_and_cancels_what_it_waited_for() -> None:
    async def main() -> bool:
        inner = asyncio.ensure_future(asyncio.sleep(30))
        with pytest.raises(asyncio.TimeoutError):
            await within(inner, 0.05)
        return inner.cancelled()

    assert asyncio.run(main())


class _LosesOneCancel:
    """A worker's attempt that swallows the first cancellation, as a library's wait_for does
    on 3.10/3.11, and goes on reading output (no real engine misbehaves on cue)."""

    name = "stubborn"

    async def attempt(self, step: Broadcast, index: int, stream: WorkerStream) -> Attempt:
        with contextlib.suppress(asyncio.CancelledError):  # lost
            await asyncio.sleep(3600)
        await asyncio.sleep(3600)
        return Attempt("ok", 0)

    def connected(self, step: Broadcast, index: int) -> bool:
        return True

    def spare_fds(self, count: int) -> None:
        return None

    async def aclose(self) -> None:
        return None


def test_a_worker_task_that_lost_its_cancellation_does_not_hold_the_run(tmp_path: Path) -> None:
    targets = [Target(f"w{i}", "127.0.0.1", 22 + i, "me") for i in range(4)]
    settings = SshSettings(known_hosts=tmp_path / "kh", identity=None)
    (step,) = plan_broadcast("t", targets, Exec("yes"), settings).steps
    assert isinstance(step, Broadcast)
    cancelled = threading.Event()
    threading.Timer(0.3, cancelled.set).start()  # the reader went away
    start = time.monotonic()

    async def bounded() -> object:
        sink = OutputSink(io.BytesIO(), io.BytesIO(), None)
        return await asyncio.wait_for(run_pool(step, _LosesOneCancel(), sink, cancelled), 20)

    result = asyncio.run(bounded())
    assert time.monotonic() - start < 10.0  # for ever before; CLEANUP_GRACE and a round now
    assert result.interrupted  # type: ignore[attr-defined]


@pytest.mark.parametrize("engine", ["asyncssh", "openssh"])
def test_ssh_piped_into_head_ends_and_stops_the_remote_commands(
    engine: str, tmp_path: Path
) -> None:
    """`xcli ssh --worker=all --command LOOP | head -1`, as processes, on the local provider:
    every run ends once the reader has gone, and the remote loops stop. A hang is for ever; the
    bound below only tells the two apart (the time itself: well under a second here)."""
    import os
    import subprocess
    import sys

    from tests.gateways.local_support import REPO, cli_env, create, delete, needs_openssh

    needs_openssh()
    create(tmp_path, "pipe", "v5litepod-8")
    marker = f"xcli-pipe-{os.getpid()}"
    loop = f"M={marker}; while :; do echo line; sleep 0.01; done"
    argv = [sys.executable, "-m", "xcli", "ssh", "--provider", "local", "--cluster", "pipe",
            "--worker=all", "--engine", engine, "--command", loop]  # fmt: skip
    try:
        for _ in range(5):
            proc = subprocess.Popen(
                argv, env=cli_env(tmp_path), cwd=REPO, stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL,
            )  # fmt: skip
            assert proc.stdout is not None
            assert proc.stdout.readline().endswith(b"line\n")
            proc.stdout.close()  # head -1 has what it wanted and exits
            proc.wait(timeout=15)  # raises on a hang
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and _running(marker):
            time.sleep(0.1)
        assert not _running(marker), "remote commands still running"
    finally:
        delete(tmp_path, "pipe", check=False)


def _running(marker: str) -> bool:
    for entry in Path("/proc").iterdir():
        try:
            if marker.encode() in (entry / "cmdline").read_bytes():
                return True
        except OSError:
            continue
    return False
