"""Broadcast `hostname` to N emulated sshd workers: xcli's engines against parallel-ssh, gcloud's
method and plain parallel OpenSSH, side by side in one run.

    pip install -e . && pip install parallel-ssh     # pssh is a peer here, not a dependency
    python benchmarks/broadcast.py [--sizes 256,1024,2304] [--reps 3] [--kex default|curve25519]

Needs OpenSSH's sshd and ssh-keygen (Debian: openssh-server). As root (with unshare), each size
gets ONE sshd in a private network namespace, every worker its own address 127.1.x.y, a plain
/bin/sh login, MaxStartups raised (tests/support/sshd_ns.py; docs/ssh.md, Large slices).
Otherwise (--emulator ports, or not root) it starts ceil(N/16) sshd processes on 127.0.0.1, one
port per worker (the helper the tests use). Every contender runs once per repetition,
interleaved so machine load hits all alike; then exactly the sshd started is stopped.

Contenders (each in its own process):
  xcli-default        what `xcli ssh` runs by default (--engine auto: gateways/ssh/choice.py
                      reads `ssh -G` and picks an engine; that choice is timed too), first run
  xcli-openssh        the openssh engine, first run (no reusable connection yet)
  xcli-openssh-reuse  the same command again over the ControlMaster connections of the run
                      before (xcli then talks to the masters directly: no ssh per worker)
  xcli-asyncssh       the asyncssh engine, first run
  xcli-asyncssh-reuse a second run over the connections the first run opened (same engine)
  pssh                parallel-ssh ParallelSSHClient, pool_size=100, first run
  gcloud-batches      gcloud's method: one `ssh` per worker in fixed batches of 64 (start 64,
                      wait for all of them, then the next 64), as `gcloud compute tpus
                      queued-resources ssh --node=all` does by default (--batch-size=64)
  openssh-parallel    one `ssh` process per worker, all at once (what `xargs -P` would do)

Above --reuse-max workers (default 256) the runs over reused connections are left out (they
hold a connection, and on the emulator two sshd processes, per worker), and above 256 so is
openssh-parallel (N ssh processes at once: about 1.3 MiB each), the openssh engine's first
run (OpenSSH 9.2's default key exchange costs about 80 ms of CPU per worker on a 2-core box)
and the asyncssh engine's (what xcli-default runs there).

Reported per N: wall time of the broadcast itself (interpreter start excluded, the same for
everyone), client CPU time (user+sys of the process and the ssh children it reaped; detached
ControlMaster processes are not counted) and peak memory (the largest sum of RSS over the
process and all its descendants, sampled every 20 ms). Medians over --reps, then ratios.
The sshd side runs on the same cores, so wall times include its cost.

Targets (issues 5 and 28): xcli's default first run at least as fast as the best peer at every
N; its wall time at the largest N no more than 10x that at 256 (for 2,304: 9x the workers); with
reused connections, 256 workers in at most 1 s on a 2-core machine; the default's peak memory
under 250 MB. The load average is printed beside each size. A measurement, not a test.
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
    "gcloud-batches",
    "openssh-parallel",
]
PEERS = ("pssh", "gcloud-batches", "openssh-parallel")
REUSE = ("xcli-openssh-reuse", "xcli-asyncssh-reuse")
# too costly above 256 workers on 2 cores (xcli-asyncssh: the same as xcli-default there)
SMALL_ONLY = ("xcli-openssh", "xcli-asyncssh", "openssh-parallel")
GCLOUD_BATCH = 64


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
    targets = [
        Target(f"w{i}", h, p, info["user"])
        for i, (h, p) in enumerate(zip(info["hosts"], info["ports"], strict=True))
    ]
    if engine == "auto":  # as cli/ssh_run.py does for --engine auto
        from xcli.gateways.ssh.choice import choose

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

    from xcli.gateways.ssh.broadcast import make_engine
    from xcli.gateways.ssh.output import OutputSink
    from xcli.gateways.ssh.pool import run_pool

    t0, c0 = time.perf_counter(), _cpu()
    step = _xcli_step(info, engine)  # for auto: the engine choice, timed with the run
    chose = (time.perf_counter() - t0, _cpu() - c0)

    async def main() -> tuple[float, float, int, str]:
        eng = make_engine(step.engine)
        if reuse and step.engine == "asyncssh":
            from xcli.gateways.ssh.asyncssh_engine import AsyncSshEngine

            eng = AsyncSshEngine()  # keeps its connections (make_engine's, for one run, does not)
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

    hosts = info["hosts"]
    config = [HostConfig(port=p, user=info["user"], private_key=info["key"]) for p in info["ports"]]
    t, c = time.perf_counter(), _cpu()
    client = ParallelSSHClient(hosts, host_config=config, pool_size=100, timeout=10, num_retries=1)
    output = client.run_command("hostname")
    client.join(output)
    lines = sum(len(list(o.stdout or ())) for o in output)
    return time.perf_counter() - t, _cpu() - c, lines


def _ssh(info: dict[str, Any], i: int) -> subprocess.Popen[bytes]:
    base = ["ssh", "-T", *info["ssh_flags"], "-o", "BatchMode=yes", "-o", "ConnectTimeout=10"]
    base += ["-o", f"UserKnownHostsFile={info['known_hosts']}", "-i", info["key"]]
    host, port = info["hosts"][i], info["ports"][i]
    return subprocess.Popen(
        [*base, "-p", str(port), "-l", info["user"], "--", host, "hostname"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )


def _openssh_parallel(info: dict[str, Any]) -> tuple[float, float, int]:
    t, c = time.perf_counter(), _cpu()
    procs = [_ssh(info, i) for i in range(len(info["ports"]))]
    lines = sum(p.communicate()[0].count(b"\n") for p in procs)
    return time.perf_counter() - t, _cpu() - c, lines


def _gcloud_batches(info: dict[str, Any]) -> tuple[float, float, int]:
    """gcloud's fan-out: fixed batches, each joined before the next starts."""
    t, c = time.perf_counter(), _cpu()
    lines, n = 0, len(info["ports"])
    for first in range(0, n, GCLOUD_BATCH):
        procs = [_ssh(info, i) for i in range(first, min(n, first + GCLOUD_BATCH))]
        lines += sum(p.communicate()[0].count(b"\n") for p in procs)
    return time.perf_counter() - t, _cpu() - c, lines


def driver(mode: str, info_path: str) -> None:
    info = json.loads(Path(info_path).read_text())
    engine = ""
    if mode.startswith("xcli-"):
        engine = {"default": "auto"}.get(mode.split("-")[1], mode.split("-")[1])
        wall, cpu, lines, engine = _xcli(info, engine, mode.endswith("-reuse"))
    elif mode == "pssh":
        wall, cpu, lines = _pssh(info)
    elif mode == "gcloud-batches":
        wall, cpu, lines = _gcloud_batches(info)
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


def modes_for(n: int, modes: list[str], reuse_max: int) -> list[str]:
    """The contenders that run at N workers (see the module's docstring)."""
    return [
        m for m in modes if not (m in REUSE and n > reuse_max) and not (m in SMALL_ONLY and n > 256)
    ]


def run_reps(
    n: int, reps: int, modes: list[str], info: dict[str, Any], work: Path
) -> dict[str, list[Any]]:
    """Every contender once per repetition, interleaved."""
    info_path = work / f"info-{n}.json"
    info_path.write_text(json.dumps(info))
    results: dict[str, list[Any]] = {m: [] for m in modes}
    loads = [os.getloadavg()[0]]
    try:
        for rep in range(reps):
            close_masters(info)
            for mode in modes:  # xcli-openssh-reuse follows xcli-openssh: its masters are warm
                results[mode].append(measure(mode, info_path))
            loads.append(os.getloadavg()[0])
            print(f"  N={n} rep {rep + 1}/{reps} done (load {loads[-1]:.1f})", file=sys.stderr)
    finally:
        close_masters(info)
    results["_load"] = loads
    return results


def _info(server: dict[str, Any], n: int, kex: str, work: Path, batch_size: int) -> dict[str, Any]:
    (work / "ssh_config").write_text("")
    flags = ["-F", str(work / "ssh_config")]
    if kex == "curve25519":
        flags += ["-o", "KexAlgorithms=curve25519-sha256"]
    return {
        **server,
        "control_dir": tempfile.mkdtemp(prefix="xcm-"),
        "ssh_flags": flags,
        "batch_size": batch_size,
    }


def run_size(
    n: int, reps: int, kex: str, modes: list[str], work: Path, batch_size: int
) -> dict[str, list[Any]]:
    """N workers = N ports of 127.0.0.1, ceil(N/16) sshd processes."""
    from tests.support.sshd import make_sshd

    server = make_sshd(work / f"sshd-{n}", n)
    server.start()
    try:
        found = {
            "hosts": ["127.0.0.1"] * n,
            "ports": server.ports,
            "user": server.user,
            "key": str(server.client_key),
            "known_hosts": str(server.pin(work / f"known_hosts-{n}")),
        }
        return run_reps(n, reps, modes, _info(found, n, kex, work, batch_size), work)
    finally:
        server.stop()


def run_size_ns(n: int, args: argparse.Namespace, modes: list[str], work: Path) -> Any:
    """N workers = N addresses of one sshd in a network namespace; this script runs the
    repetitions inside it (--inside) and hands back their results."""
    from tests.support.sshd_ns import in_namespace

    out = work / f"results-{n}.json"
    inner = [sys.executable, __file__, f"--inside={out}", f"--reps={args.reps}"]
    inner += [f"--kex={args.kex}", f"--batch-size={args.batch_size}", f"--only={','.join(modes)}"]
    subprocess.run(in_namespace(n, work / f"ns-{n}", inner), check=True, cwd=REPO)
    return json.loads(out.read_text())


def inside(args: argparse.Namespace) -> None:
    """In the namespace: the emulator's workers (tests/support/sshd_ns.py wrote them down)."""
    server = json.loads(Path(os.environ["XCLI_TEST_SSHD"]).read_text())
    n = len(server["hosts"])
    keep = ("hosts", "ports", "user", "key", "known_hosts")
    with tempfile.TemporaryDirectory(prefix="xcli-bench-in-") as tmp:
        info = _info({k: server[k] for k in keep}, n, args.kex, Path(tmp), args.batch_size)
        results = run_reps(n, args.reps, args.only.split(","), info, Path(tmp))
    Path(args.inside).write_text(json.dumps(results))


def _median(rows: list[dict[str, Any]], key: str) -> float | None:
    values = [r[key] for r in rows if isinstance(r, dict) and key in r]
    return statistics.median(values) if values else None


def _cell(rows: list[dict[str, Any]] | None, n: int) -> str:
    if not rows:
        return "-"
    errors = [r["error"] for r in rows if "error" in r]
    if errors:
        return "error: " + errors[0][:40]
    w, c, m = (_median(rows, k) for k in ("wall", "cpu", "peak_mb"))
    bad = any(r["lines"] != n for r in rows)
    return f"{w:.2f} / {c:.2f} / {m:.0f}{' !' if bad else ''}"


def report(all_results: dict[int, dict[str, Any]], modes: list[str]) -> None:
    """A Markdown table (medians: wall s / client CPU s / peak MB), then the targets."""
    sizes = sorted(all_results)
    print("\n| contender | " + " | ".join(f"N={n:,}" for n in sizes) + " |")
    print("|---|" + "---|" * len(sizes))
    for mode in modes:
        cells = [_cell(all_results[n].get(mode), n) for n in sizes]
        print(f"| {mode} | " + " | ".join(cells) + " |")
    loads = [all_results[n].get("_load", []) for n in sizes]
    print("| load average (1 min) | " + " | ".join(_span(x) for x in loads) + " |")
    print("\n(wall s / client CPU s / peak MB, medians; '!' = not every worker's line came back)")
    walls = {n: {m: _median(all_results[n].get(m, []), "wall") for m in modes} for n in sizes}
    for n in sizes:
        peers = {p: walls[n][p] for p in PEERS if walls[n].get(p)}
        mine = walls[n].get("xcli-default")
        if peers and mine:
            best = min(peers, key=lambda p: peers[p] or 0)
            ratio = (peers[best] or 0) / mine
            rows = all_results[n].get("xcli-default", [])
            picked = sorted({r.get("engine", "?") for r in rows if "engine" in r})
            print(
                f"N={n}: best peer ({best}) / xcli default first run (engine "
                f"{', '.join(picked)}) = {ratio:.2f}x "
                f"({'meets' if ratio >= 1 else 'misses'} 'at least as fast')"
            )
        peak = _median(all_results[n].get("xcli-default", []), "peak_mb")
        if peak is not None and n >= 2304:
            verdict = "meets" if peak < 250 else "misses"
            print(f"N={n}: xcli default peak {peak:.0f} MB ({verdict} 'under 250 MB')")
        for m in REUSE:
            if n == 256 and walls[n].get(m):
                verdict = "meets" if (walls[n][m] or 9) <= 1.0 else "misses"
                print(f"N=256: {m} = {walls[n][m]:.2f}s ({verdict} the 1 s target)")
    big = max(sizes)
    if (
        256 in walls
        and big > 256
        and walls[256].get("xcli-default")
        and walls[big].get("xcli-default")
    ):
        ratio = (walls[big]["xcli-default"] or 0) / (walls[256]["xcli-default"] or 1)
        verdict = "meets" if ratio <= 10 else "misses"
        print(
            f"xcli default: wall at N={big} / wall at N=256 = {ratio:.1f}x "
            f"({verdict} 'no more than 10x'; {big / 256:.1f}x the workers)"
        )


def _span(values: list[float]) -> str:
    return f"{min(values):.1f}-{max(values):.1f}" if values else "-"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="16,64,256")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--kex", choices=["default", "curve25519"], default="default")
    parser.add_argument("--batch-size", type=int, default=64, help="xcli's window (default 64)")
    parser.add_argument("--only", help="comma-separated contenders (default: all)")
    parser.add_argument("--reuse-max", type=int, default=256, help="largest N for reuse runs")
    parser.add_argument("--emulator", choices=["auto", "namespace", "ports"], default="auto")
    parser.add_argument("--driver", help=argparse.SUPPRESS)
    parser.add_argument("--info", help=argparse.SUPPRESS)
    parser.add_argument("--inside", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.driver:  # xcli raises its own open-file limit; the peers get the raised one
        driver(args.driver, args.info)
        return
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    if args.inside:
        inside(args)
        return
    modes = args.only.split(",") if args.only else list(CONTENDERS)
    if unknown := set(modes) - set(CONTENDERS):
        sys.exit(f"unknown contenders {sorted(unknown)}; choose from {CONTENDERS}")
    try:
        import pssh  # noqa: F401
    except ImportError:
        print("parallel-ssh is not installed (pip install parallel-ssh): pssh skipped")
        modes = [m for m in modes if m != "pssh"]
    emulator = args.emulator
    if emulator == "auto":
        from tests.support.sshd_ns import available

        emulator = "namespace" if available() is None else "ports"
    with tempfile.TemporaryDirectory(prefix="xcli-bench-") as tmp:
        work = Path(tmp)
        results = {}
        for n in (int(x) for x in args.sizes.split(",")):
            here = modes_for(n, modes, args.reuse_max)
            if emulator == "namespace":
                results[n] = run_size_ns(n, args, here, work)
            else:
                results[n] = run_size(n, args.reps, args.kex, here, work, args.batch_size)
        report(results, modes)
    print(
        f"\nemulator: {emulator}; OpenSSH KEX: {args.kex}; xcli window {args.batch_size}; "
        f"{os.cpu_count()} CPUs; load now {os.getloadavg()[0]:.1f}"
    )


if __name__ == "__main__":
    main()
