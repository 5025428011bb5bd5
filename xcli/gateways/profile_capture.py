"""Run a `profile_capture` step (xcli/plan/profile.py) on VM-style clusters: one SSH port
forward per host, then XProf's `trace()` on this machine against the forwarded ports.

- Connections: asyncssh, at most `window` handshakes at once, each host's connect timeout the
  SSH settings' one. A host that cannot be reached is named with the reason and left out.
- Each forward is probed first (a direct-tcpip channel to the profiler port, as the trace's
  gRPC connection will open): a refusal there means no profiler server listens, and that host
  is named with it, before the trace waits for it.
- The trace runs in a child python (TRACE_SCRIPT, its arguments on stdin; the process
  funnel), one per chunk of hosts, all at once: the XProf binding blocks in C++ for the whole
  capture while this event loop must keep relaying the forwards, and its log (which names an
  address that did not answer) goes to the child's stderr, which is read here. The children
  start before the forwards (python and xprof load meanwhile) and get their arguments once
  every forward exists.
- Afterwards the session folder says who answered: a host without its file is named, with the
  trace's own words for that address when it logged any.
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from xcli.plan.fanout import SshSettings
from xcli.plan.profile import (
    CHUNK,
    TRACE_SCRIPT,
    ProfileCapture,
    ProfileHost,
    ProfileResult,
    Route,
    file_stem,
    open_command,
    trace_args,
)

WINDOW = 64  # SSH handshakes at once


def _loaded(settings: SshSettings) -> dict[str, Any]:
    """The known hosts and the client key, read once for every connection of the capture
    (asyncssh reads and parses both files per connection when given their paths)."""
    import asyncssh

    options: dict[str, Any] = {
        # the workers' keys pinned by the provider or by an earlier `xcli ssh`; never unchecked
        "known_hosts": asyncssh.read_known_hosts(str(settings.known_hosts))
        if Path(settings.known_hosts).is_file()
        else str(settings.known_hosts),
    }
    if settings.identity is not None:
        options["client_keys"] = [asyncssh.read_private_key(str(settings.identity))]
        options["agent_path"] = None
    return options


async def _connect(route: Route, settings: SshSettings, loaded: dict[str, Any]) -> Any:
    import asyncssh

    options: dict[str, Any] = {
        **loaded,
        "port": route.target.port,
        "connect_timeout": settings.connect_timeout,
        "login_timeout": settings.connect_timeout,
        "keepalive_interval": 10,
    }
    if route.target.user:
        options["username"] = route.target.user
    return await asyncssh.connect(route.target.host, **options)


async def _forward(
    route: Route,
    host: ProfileHost,
    settings: SshSettings,
    gate: asyncio.Semaphore,
    loaded: dict[str, Any],
) -> tuple[Any, Any, int] | str:
    """(connection, listener, local port), or why this host cannot be traced."""
    import asyncssh

    try:
        async with gate:
            conn = await _connect(route, settings, loaded)
    except (OSError, asyncssh.Error, asyncio.TimeoutError) as exc:
        return f"SSH: {str(exc) or type(exc).__name__}"
    try:  # the probe: does anything listen on the profiler port, seen from the worker?
        _, writer = await conn.open_connection(host.address, host.port)
        writer.close()
    except asyncssh.ChannelOpenError as exc:
        conn.close()
        why = exc.reason or "refused"
        return f"no profiler server on port {host.port} ({why})"
    listener = await conn.forward_local_port("127.0.0.1", 0, host.address, host.port)
    return conn, listener, int(listener.get_port())


def reasons(stderr: str) -> dict[str, str]:
    """`ADDR returned STATUS: words` lines of the XProf capture's log, by address."""
    found: dict[str, str] = {}
    for match in re.finditer(r"\] (\S+:\d+) returned ([A-Z_]+)(?:: ([^\n]*))?", stderr):
        found[match.group(1)] = f"{match.group(2)}: {(match.group(3) or '').strip()}"[:200]
    for match in re.finditer(r"No trace event is collected from (\S+:\d+)", stderr):
        found.setdefault(match.group(1), "no trace events collected")
    return found


# the child reads its arguments from stdin: it is started (python, xprof imported) while the
# SSH forwards are made, and given the forwarded ports when they exist
_WAITING_SCRIPT = TRACE_SCRIPT.replace(
    "json.loads(sys.argv[1])", "json.loads(sys.stdin.readline())"
)
assert _WAITING_SCRIPT != TRACE_SCRIPT


async def _spawn() -> Any:
    from xcli.gateways import process

    return await process.spawn([sys.executable, "-c", _WAITING_SCRIPT], hold_stdin=True)


async def _trace(
    proc: Any, step: ProfileCapture, hosts: Sequence[ProfileHost], timeout: float
) -> str:
    """Give a waiting child its `trace()` over `hosts` (their endpoints already the forwarded
    ones); its stderr (the capture's log)."""
    try:
        proc.stdin.write(json.dumps(trace_args(step, hosts)).encode() + b"\n")
        await proc.stdin.drain()
        proc.stdin.close()
    except (BrokenPipeError, ConnectionResetError):  # it ended already: its stderr says why
        pass
    try:
        _, err = await asyncio.wait_for(proc.communicate(), timeout)
    except asyncio.TimeoutError:
        proc.kill()
        await proc.wait()
        return "the capture did not finish in time"
    except asyncio.CancelledError:  # Ctrl-C: the child is in its own session, stop it too
        if proc.returncode is None:
            proc.kill()
        raise
    text: str = err.decode(errors="replace")
    if proc.returncode != 0 and "No module named 'xprof'" in text:
        return "xprof is not installed"
    return text


async def capture(
    step: ProfileCapture, routes: Sequence[Route], settings: SshSettings
) -> ProfileResult:
    """Forward, trace, and report every host's file or why it has none. The trace's child
    processes start first (python and xprof load while the forwards are made); every host's
    forward exists before any host is asked to trace, so all start at the same instant."""
    start = time.monotonic()
    result = ProfileResult(step.session_dir, open_command=open_command(step.log_dir))
    procs = [await _spawn() for _ in range(0, len(step.hosts), CHUNK)]
    conns = []
    try:
        gate = asyncio.Semaphore(WINDOW)
        by_label = {r.label: r for r in routes}
        loaded = _loaded(settings)
        opened = await asyncio.gather(
            *(_forward(by_label[h.label], h, settings, gate, loaded) for h in step.hosts)
        )
        live: list[tuple[ProfileHost, ProfileHost]] = []  # (as planned, as forwarded)
        for host, got in zip(step.hosts, opened, strict=True):
            if isinstance(got, str):
                result.missing[host.label] = got
                continue
            conns.append(got)
            live.append((host, ProfileHost(host.label, "127.0.0.1", got[2])))
        if live:
            budget = step.duration_ms / 1000 + step.options.get("delay_ms", 0) / 1000 + 60
            chunks = [live[i : i + CHUNK] for i in range(0, len(live), CHUNK)]
            logs = await asyncio.gather(
                *(
                    _trace(proc, step, [f for _, f in chunk], budget)
                    for proc, chunk in zip(procs, chunks, strict=False)
                )
            )
            _collect(step, chunks, logs, result)
    finally:
        for proc in procs:  # the children not needed (hosts not reached), or interrupted
            if proc.returncode is None:
                proc.kill()
                await proc.wait()
        for conn, listener, _ in conns:
            listener.close()
            conn.close()
    result.seconds = time.monotonic() - start
    return result


def _collect(
    step: ProfileCapture,
    chunks: list[list[tuple[ProfileHost, ProfileHost]]],
    logs: list[str],
    result: ProfileResult,
) -> None:
    folder = Path(step.session_dir)
    remote = step.log_dir.startswith("gs://")  # written by XProf's GCS support, not listed here
    for chunk, log in zip(chunks, logs, strict=True):
        found = reasons(log)
        for planned, forwarded in chunk:
            path = folder / f"{file_stem(planned.label)}.xplane.pb"
            if remote and forwarded.endpoint not in found and "xprof is not" not in log:
                result.files[planned.label] = f"{step.session_dir}/{path.name}"
                continue
            if path.is_file() and path.stat().st_size > 0:
                result.files[planned.label] = str(path)
                continue
            why = found.get(forwarded.endpoint)
            if why is None:
                last = [x for x in log.strip().splitlines() if x.strip()][-1:] or ["no file"]
                why = f"no trace returned ({last[0].strip()[:160]})"
            result.missing[planned.label] = why


def run(step: ProfileCapture, routes: Sequence[Route], settings: SshSettings) -> ProfileResult:
    """The live handler's entry point: a fresh event loop for the whole capture."""
    if not step.log_dir.startswith("gs://"):
        Path(step.session_dir).mkdir(parents=True, exist_ok=True)
    return asyncio.run(capture(step, routes, settings))
