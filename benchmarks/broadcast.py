"""Broadcast `hostname` to N local sshd workers: xcli's engines against parallel-ssh and plain
parallel OpenSSH, side by side in one run.

    pip install -e . && pip install parallel-ssh     # pssh is a peer here, not a dependency
    python benchmarks/broadcast.py [--sizes 16,64,256] [--reps 3] [--kex default|curve25519]

Needs OpenSSH's sshd and ssh-keygen (Debian: openssh-server). Starts ceil(N/16) sshd processes
on 127.0.0.1 (one port per worker, the same helper the tests use), runs every contender once per
repetition, interleaved so machine load hits all alike, then stops exactly the sshd it started.

Contenders (each in its own process):
  xcli-default        what `xcli ssh` runs by default (--engine auto: gateways/ssh_choice.py
                      reads `ssh -G` and picks an engine; that choice is timed too), first run
  xcli-openssh        the openssh engine, first run (no reusable connection yet)
  xcli-openssh-reuse  the same command again over the ControlMaster connections of the run
                      before (xcli then talks to the masters directly: no ssh per worker)
  xcli-asyncssh       the asyncssh engine, first run
  xcli-asyncssh-reuse a second run over the connections the first run opened (same engine)
  pssh                parallel-ssh ParallelSSHClient, pool_size=100, first run
  openssh-parallel    one `ssh` process per worker, all at once (what `xargs -P` would do)

Reported per N: wall time of the broadcast itself (interpreter start excluded, the same for
everyone), client CPU time (user+sys of the process and the ssh children it reaped; detached
ControlMaster processes are not counted) and peak memory (the largest sum of RSS over the
process and all its descendants, sampled every 20 ms). Medians over --reps, then ratios.
The sshd side runs on the same cores, so wall times include its cost.

Targets (issue 5): xcli's first run at least as fast as the best peer at every N; with reused
connections, 256 workers in at most 1 s on a 2-core machine. A measurement, not a test.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

CONTENDERS = [
    "xcli-default",  # first in each repetition: no connection is open yet
    "xcli-openssh",
    "xcli-openssh-reuse",
    "xcli-asyncssh",
    "xcli-asyncssh-reuse",
    "pssh",
    "openssh-parallel",
]
PEERS = ("pssh", "openssh-parallel")


# ---- driver side: runs in a child process, prints one JSON line ---------------------------


def _cpu() -> float:
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def _xcli_step(info: dict[str, Any], engine: str) -> Any:
    from dataclasses import replace

    from xcli.plan.fanout import Exec, SshSettings, Target, plan_broadcast

    settings = SshSettings(
        known_hosts=Path(info["known_hosts"]),
        identity=Path(info["key"]),
        connect_timeout=10,
        control_dir=Path(info["control_dir"]) if engine in ("openssh", "auto") else None,
        ssh_flags=tuple(info["ssh_flags"]),
    )
    targets = [Target(f"w{i}", "127.0.0.1", p, info["user"]) for i, p in enumerate(info["ports"])]
    if engine == "auto":  # as cli/ssh_run.py does for --engine auto
        from xcli.gateways.ssh_choice import choose

        choice = choose(targets, settings)
        engine = choice.engine
        if engine == "asyncssh":
            settings = replace(settings, control_dir=None, send_env=choice.send_env)
    batch = int(info.get("batch_size", 64))
    plan = plan_broadcast(
        "bench", targets, Exec("hostname"), settings, engine=engine, batch_size=batch
    )
    return plan.steps[0]


def _xcli(info: dict[str, Any], engine: str, reuse: bool) -> tuple[float, float, int, str]:
    import asyncio

    from xcli.gateways.broadcast import make_engine
    from xcli.gateways.output import OutputSink
    from xcli.gateways.ssh_pool import run_pool

    t0, c0 = time.perf_counter(), _cpu()
    step = _xcli_step(info, engine)  # for auto: the engine choice, timed with the run
    chose = (time.perf_counter() - t0, _cpu() - c0)

    async def main() -> tuple[float, float, int, str]:
        eng = make_engine(step.engine)
        if reuse and step.engine == "asyncssh":
            await run_pool(step, eng, OutputSink(io.BytesIO(), None, None))
        out = io.BytesIO()
        t, c = time.perf_counter(), _cpu()
        result = await run_pool(step, eng, OutputSink(out, io.BytesIO(), None))
        wall, cpu = time.perf_counter() - t, _cpu() - c
        await eng.aclose()
        assert result.exit_code == 0, result.summary_lines()
        if engine == "auto":
            wall, cpu = wall + chose[0], cpu + chose[1]
        return wall, cpu, out.getvalue().count(b"\n"), step.engine

    return asyncio.run(main())


def _pssh(info: dict[str, Any]) -> tuple[float, float, int]:
    from pssh.clients import ParallelSSHClient
    from pssh.config import HostConfig

    hosts = ["127.0.0.1"] * len(info["ports"])
    config = [HostConfig(port=p, user=info["user"], private_key=info["key"]) for p in info["ports"]]
    t, c = time.perf_counter(), _cpu()
    client = ParallelSSHClient(hosts, host_config=config, pool_size=100, timeout=10, num_retries=1)
    output = client.run_command("hostname")
    client.join(output)
    lines = sum(len(list(o.stdout or ())) for o in output)
    return time.perf_counter() - t, _cpu() - c, lines


def _openssh_parallel(info: dict[str, Any]) -> tuple[float, float, int]:
    base = ["ssh", "-T", *info["ssh_flags"], "-o", "BatchMode=yes", "-o", "ConnectTimeout=10"]
    base += ["-o", f"UserKnownHostsFile={info['known_hosts']}", "-i", info["key"]]
    t, c = time.perf_counter(), _cpu()
    procs = [
        subprocess.Popen(
            [*base, "-p", str(p), "-l", info["user"], "--", "127.0.0.1", "hostname"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        for p in info["ports"]
    ]
    lines = sum(p.communicate()[0].count(b"\n") for p in procs)
    return time.perf_counter() - t, _cpu() - c, lines


def driver(mode: str, info_path: str) -> None:
    info = json.loads(Path(info_path).read_text())
    engine = ""
    if mode.startswith("xcli-"):
        engine = {"default": "auto"}.get(mode.split("-")[1], mode.split("-")[1])
        wall, cpu, lines, engine = _xcli(info, engine, mode.endswith("-reuse"))
    elif mode == "pssh":
        wall, cpu, lines = _pssh(info)
    else:
        wall, cpu, lines = _openssh_parallel(info)
    print(json.dumps({"wall": wall, "cpu": cpu, "lines": lines, "engine": engine}))


# ---- orchestrator side --------------------------------------------------------------------


def _tree_rss(root: int) -> int:
    """Sum of RSS (bytes) over `root` and its descendants, from /proc."""
    parent: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            parent[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    tree, changed = {root}, True
    while changed:
        before = len(tree)
        tree |= {pid for pid, pp in parent.items() if pp in tree}
        changed = len(tree) != before
    total = 0
    for pid in tree:
        with contextlib.suppress(OSError, IndexError):
            total += int((Path("/proc") / str(pid) / "statm").read_text().split()[1])
    return total * os.sysconf("SC_PAGE_SIZE")


def measure(mode: str, info_path: Path) -> dict[str, Any]:
    proc = subprocess.Popen(
        [sys.executable, __file__, "--driver", mode, "--info", str(info_path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    peak = [0]

    def sample() -> None:
        while proc.poll() is None:
            peak[0] = max(peak[0], _tree_rss(proc.pid))
            time.sleep(0.02)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    out, err = proc.communicate(timeout=600)
    sampler.join()
    if proc.returncode != 0:
        return {"error": (err.strip().splitlines() or ["failed"])[-1]}
    data: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    data["peak_mb"] = peak[0] / 2**20
    return data


def close_masters(info: dict[str, Any]) -> None:
    """End every ControlMaster whose socket is in the control folder."""
    for sock in Path(info["control_dir"]).iterdir():
        subprocess.run(
            ["ssh", "-o", f"ControlPath={sock}", "-O", "exit", "127.0.0.1"],
            capture_output=True,
            check=False,
        )


def run_size(
    n: int, reps: int, kex: str, modes: list[str], work: Path, batch_size: int
) -> dict[str, list[Any]]:
    from tests.support.sshd import make_sshd

    server = make_sshd(work / f"sshd-{n}", n)
    server.start()
    flags = ["-F", str(work / "ssh_config")]
    if kex == "curve25519":
        flags += ["-o", "KexAlgorithms=curve25519-sha256"]
    control = Path(tempfile.mkdtemp(prefix="xcm-"))
    info = {
        "ports": server.ports,
        "user": server.user,
        "key": str(server.client_key),
        "known_hosts": str(server.pin(work / f"known_hosts-{n}")),
        "control_dir": str(control),
        "ssh_flags": flags,
        "batch_size": batch_size,
    }
    info_path = work / f"info-{n}.json"
    info_path.write_text(json.dumps(info))
    results: dict[str, list[Any]] = {m: [] for m in modes}
    try:
        for rep in range(reps):
            close_masters(info)
            for mode in modes:  # xcli-openssh-reuse follows xcli-openssh: its masters are warm
                results[mode].append(measure(mode, info_path))
            print(f"  N={n} rep {rep + 1}/{reps} done", file=sys.stderr)
    finally:
        close_masters(info)
        server.stop()
    return results


def _median(rows: list[dict[str, Any]], key: str) -> float | None:
    values = [r[key] for r in rows if key in r]
    return statistics.median(values) if values else None


def report(all_results: dict[int, dict[str, list[Any]]], modes: list[str]) -> None:
    sizes = sorted(all_results)
    print(f"\n{'contender':22}" + "".join(f"{'N=' + str(n):>30}" for n in sizes))
    print(f"{'':22}" + "".join(f"{'wall s / cpu s / peak MB':>30}" for _ in sizes))
    for mode in modes:
        cells = []
        for n in sizes:
            rows = all_results[n][mode]
            errors = [r["error"] for r in rows if "error" in r]
            if errors:
                cells.append(f"{'error: ' + errors[0][:20]:>30}")
                continue
            w, c, m = (_median(rows, k) for k in ("wall", "cpu", "peak_mb"))
            bad = any(r["lines"] != n for r in rows)
            cells.append(f"{w:9.2f} / {c:6.2f} / {m:7.0f}{' !' if bad else '  '}".rjust(30))
        print(f"{mode:22}" + "".join(cells))
    print("\n('!' = not every worker's line came back)")
    for n in sizes:
        walls = {m: _median(all_results[n][m], "wall") for m in modes}
        peers = [walls[p] for p in PEERS if walls.get(p)]
        firsts = {m: walls[m] for m in ("xcli-openssh", "xcli-asyncssh") if walls.get(m)}
        if peers and firsts:
            best_x = min(firsts, key=lambda m: firsts[m] or 0)
            ratio = min(peers) / (firsts[best_x] or 1)
            print(
                f"N={n}: best peer / xcli first run ({best_x}) = {ratio:.2f}x "
                f"({'meets' if ratio >= 1 else 'misses'} 'at least as fast')"
            )
        rows = all_results[n].get("xcli-default", [])
        if peers and walls.get("xcli-default"):
            picked = sorted({r.get("engine", "?") for r in rows if "engine" in r})
            ratio = min(peers) / (walls["xcli-default"] or 1)
            print(
                f"N={n}: best peer / xcli default first run (engine {', '.join(picked)}) = "
                f"{ratio:.2f}x ({'meets' if ratio >= 1 else 'misses'} 'at least as fast')"
            )
        for m in ("xcli-openssh-reuse", "xcli-asyncssh-reuse"):
            if n == 256 and walls.get(m):
                verdict = "meets" if (walls[m] or 9) <= 1.0 else "misses"
                print(f"N=256: {m} = {walls[m]:.2f}s ({verdict} the 1 s target)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="16,64,256")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--kex", choices=["default", "curve25519"], default="default")
    parser.add_argument("--batch-size", type=int, default=64, help="xcli's window (default 64)")
    parser.add_argument("--only", help="comma-separated contenders (default: all)")
    parser.add_argument("--driver", help=argparse.SUPPRESS)
    parser.add_argument("--info", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.driver:
        driver(args.driver, args.info)
        return
    modes = args.only.split(",") if args.only else list(CONTENDERS)
    if unknown := set(modes) - set(CONTENDERS):
        sys.exit(f"unknown contenders {sorted(unknown)}; choose from {CONTENDERS}")
    try:
        import pssh  # noqa: F401
    except ImportError:
        print("parallel-ssh is not installed (pip install parallel-ssh): pssh skipped")
        modes = [m for m in modes if m != "pssh"]
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    with tempfile.TemporaryDirectory(prefix="xcli-bench-") as tmp:
        work = Path(tmp)
        (work / "ssh_config").write_text("")
        results = {}
        for n in (int(x) for x in args.sizes.split(",")):
            results[n] = run_size(n, args.reps, args.kex, modes, work, args.batch_size)
        report(results, modes)
    print(
        f"\nOpenSSH KEX: {args.kex}; xcli window {args.batch_size}; {os.cpu_count()} CPUs; "
        f"load now {os.getloadavg()[0]:.1f}"
    )


if __name__ == "__main__":
    main()
