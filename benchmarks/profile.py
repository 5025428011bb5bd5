"""`xcli workload profile` on N emulated hosts: every host at once against the host-by-host way
(`xprofiler capture` loops over hosts, one blocking capture each), in one run.

    pip install -e '.[test]'          # CPU JAX and xprof
    python benchmarks/profile.py [--sizes 4,16,64] [--reps 3] [--duration 1s]

For each N it creates a local cluster of N workers (v5litepod-16 slices of 4), starts a CPU JAX
workload whose every worker runs a small jitted loop with its profiler server on its own
XCLI_PROFILER_PORT (`jax.profiler.start_server(xcli.goodput.profiler_port())`), waits until all
serve, then times:
  at-once      `xcli workload profile NAME --duration D` (every host, one trace)
  one-host     the same for one host (`--hosts s0/w0`): the floor of a capture
  host-by-host one `xcli workload profile --hosts sS/wW` per host, one after the other, as
               xprofiler does (it runs a `gcloud ... ssh` or `kubectl exec` per host; here each
               step is an xcli process, so both ways pay the same per-capture costs)
Wall time of each command as a whole (interpreter start included, the same for each), and its
CPU time (the xcli process and its trace child, not the emulated workers'). Medians
over --reps (host-by-host runs once per size above 16 hosts: it is N captures). Each CPU JAX
worker holds about 95 MB of its own; sizes that would not fit in free memory are skipped.

Targets (issue 34): at 64 hosts at most 1.5x the single-host capture time, and faster than the
host-by-host way at every size. A measurement, not a test.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PROGRAM = """\
import time, jax, jax.numpy as jnp
import xcli.goodput as goodput
jax.profiler.start_server(goodput.profiler_port())
step = jax.jit(lambda x: jnp.tanh(x @ x))
x = jnp.ones((64, 64))
for i in range(10_000_000):
    with jax.profiler.StepTraceAnnotation("train", step_num=i):
        step(x).block_until_ready()
    if i == 3:
        open("ready", "w").close()
    time.sleep(0.05)
"""
# one CPU JAX worker with its profiler server: its proportional set size, measured (about
# 95 MB; its RSS, 215 MB, counts the shared jaxlib pages once per process)
PSS_MB = 110


CPU: dict[str, float] = {}  # the last command's CPU seconds (itself and its trace children)


def xcli(
    home: Path, *args: str, check: bool = True
) -> tuple[float, subprocess.CompletedProcess[str]]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("XCLI_")}
    env.update(XCLI_HOME=str(home / "state"), HOME=str(home), JAX_PLATFORMS="cpu")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "xcli", *args], env=env, capture_output=True,
                          text=True, timeout=1800, check=False)  # fmt: skip
    took = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU["last"] = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if check and done.returncode != 0:
        raise SystemExit(f"xcli {' '.join(args)} -> {done.returncode}\n{done.stderr[-3000:]}")
    return took, done


def free_mb() -> int:
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemAvailable:"):
            return int(line.split()[1]) // 1024
    return 0


def one_size(n: int, reps: int, duration: str) -> dict[str, float] | None:
    if n % 4:
        raise SystemExit("sizes are multiples of 4 (slices of a v5litepod-16)")
    if free_mb() < n * PSS_MB * 1.5:
        print(f"N={n}: skipped, {free_mb()} MB free for {n} JAX workers", flush=True)
        return None
    where = ("--provider", "local", "--cluster", f"prof{n}")
    with tempfile.TemporaryDirectory(prefix="xcli-prof-") as tmp:
        home = Path(tmp)
        xcli(home, "cluster", "create", *where, "--tpu-type", "v5litepod-16",
             "--num-slices", str(n // 4))  # fmt: skip
        try:
            (home / "loop.py").write_text(PROGRAM)
            xcli(home, "scp", *where, "--worker=all", str(home / "loop.py"), ":~/")
            xcli(home, "workload", "create", *where, "--workload", "bench",
                 "--command", "python3 loop.py", "--detach")  # fmt: skip
            workers = home / "state" / "local" / f"prof{n}" / "workers"
            deadline = time.monotonic() + 600
            while len(list(workers.glob("*/ready"))) < n:
                if time.monotonic() > deadline:
                    raise SystemExit(f"N={n}: the workers never all served")
                time.sleep(0.5)
            base = ("workload", "profile", "bench", *where, "--duration", duration)
            times: dict[str, list[float]] = {
                "at-once": [], "one-host": [], "host-by-host": [], "cpu-at-once": [],
                "cpu-one-host": [],
            }  # fmt: skip
            labels = [f"s{s}/w{w}" for s in range(n // 4) for w in range(4)]
            for rep in range(reps):
                logs = str(home / f"logs-{rep}")
                took, done = xcli(home, *base, "--log-dir", logs, check=False)
                if done.returncode != 0:
                    print(done.stderr[-2000:], file=sys.stderr)
                times["at-once"].append(took)
                times["cpu-at-once"].append(CPU["last"])
                times["one-host"].append(xcli(home, *base, "--hosts", "s0/w0",
                                              "--log-dir", logs + "-one")[0])  # fmt: skip
                times["cpu-one-host"].append(CPU["last"])
                if rep == 0 or n <= 16:
                    start = time.monotonic()
                    for label in labels:
                        xcli(home, *base, "--hosts", label, "--log-dir", logs + "-seq")
                    times["host-by-host"].append(time.monotonic() - start)
            return {k: statistics.median(v) for k, v in times.items()}
        finally:
            xcli(home, "workload", "delete", "bench", *where, "--yes", check=False)
            xcli(home, "cluster", "delete", *where, "--yes", check=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="4,16,64")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--duration", default="1s")
    args = parser.parse_args()
    rows = []
    for n in (int(x) for x in args.sizes.split(",")):
        got = one_size(n, args.reps, args.duration)
        load = os.getloadavg()[0]
        if got is not None:
            rows.append((n, got, load))
            print(f"N={n}: {got} (load {load:.1f})", flush=True)
    print("\n| hosts | at once (s) | one host (s) | host by host (s) | at once / one host | "
          "host by host / at once | CPU at once (s) | CPU one host (s) | load |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|")
    for n, t, load in rows:
        print(f"| {n} | {t['at-once']:.1f} | {t['one-host']:.1f} | {t['host-by-host']:.1f} | "
              f"{t['at-once'] / t['one-host']:.2f}x | {t['host-by-host'] / t['at-once']:.1f}x | "
              f"{t['cpu-at-once']:.2f} | {t['cpu-one-host']:.2f} | {load:.1f} |")  # fmt: skip


if __name__ == "__main__":
    main()
