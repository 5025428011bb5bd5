"""Run a Broadcast step: the public entry point of the SSH engines.

    step = plan_broadcast(...).steps[0]        # xcli.plan.fanout, pure
    result = run_broadcast(step, OutputSink(sys.stdout.buffer, sys.stderr.buffer, log_dir))
    result.exit_code, result.summary_lines()

`handler` adapts it to the live executor (a step of kind "ssh" in any plan).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Mapping
from typing import Any

from xcli.errors import CloudError, UserError
from xcli.gateways.ssh.output import OutputSink, default_log_dir
from xcli.gateways.ssh.pool import SshEngine, run_pool
from xcli.plan.contract import StepContext
from xcli.plan.fanout import Broadcast
from xcli.plan.fanout_result import FanoutResult


def make_engine(name: str) -> SshEngine:
    if name == "openssh":
        from xcli.gateways.ssh.openssh_engine import OpenSshEngine

        return OpenSshEngine()
    if name == "asyncssh":
        try:
            import asyncssh  # noqa: F401
        except ImportError:
            raise UserError(
                "the asyncssh engine needs the asyncssh package", hint="pip install asyncssh"
            ) from None
        from xcli.gateways.ssh.asyncssh_engine import AsyncSshEngine

        return AsyncSshEngine(keep=0)  # one run: nothing reuses its connections
    raise UserError(f"unknown SSH engine {name!r}", hint="engines: openssh, asyncssh")


def run_broadcast(
    step: Broadcast,
    sink: OutputSink,
    cancelled: threading.Event | None = None,
    engine: SshEngine | None = None,
) -> FanoutResult:
    """Run the step on every worker (in a fresh event loop); never raises for a worker's
    failure: each one is an outcome in the result."""
    if step.engine == "openssh" and step.settings and step.settings.control_dir:
        from xcli.gateways.ssh.openssh_engine import ensure_control_dir

        ensure_control_dir(step.settings.control_dir)
    return asyncio.run(_once(step, engine or make_engine(step.engine), sink, cancelled))


async def _once(
    step: Broadcast, engine: SshEngine, sink: OutputSink, cancelled: threading.Event | None
) -> FanoutResult:
    try:
        return await run_pool(step, engine, sink, cancelled)
    finally:
        await engine.aclose()


def handler(step: Any, ctx: StepContext) -> Mapping[str, Any]:
    """Live-executor handler for "ssh" steps: output to the log folder, failure -> CloudError."""
    if not isinstance(step, Broadcast):
        raise UserError("this ssh step has no engine settings", hint="build it with plan_broadcast")
    sink = OutputSink(None, None, default_log_dir())
    result = run_broadcast(step, sink, ctx.cancelled)
    if result.failed:
        lines = result.summary_lines()
        raise CloudError(
            lines[0] + ": " + "; ".join(x.strip() for x in lines[1:4]),
            hint=f"logs in {sink.log_dir}",
        )
    return {"workers": len(result.outcomes), "log_dir": str(sink.log_dir)}
