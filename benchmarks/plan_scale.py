"""Cost of `cluster create --dry-run` at the ordinary size and at the largest shapes.

    python benchmarks/plan_scale.py [--runs 15] [--baseline CHECKOUT]

Two measurements (issue 28, "Clusters of thousands of nodes"):
- whole command, in a child process (`python -m xcli cluster create ... --dry-run -o json`, output
  read through a pipe): the 2-slice v6e-256 plan of every benchmark, and the three largest shapes
  (tpu7x-512 x 36 = 9,216 chips / 2,304 VMs, v5p-12288 = 1,536 VMs, v6e-256 x 32);
- in this process, building and printing the plan alone (no interpreter start, no imports): the
  planner and the JSON and text renderers, for the same shapes.
With --baseline, the same commands run with another checkout first on PYTHONPATH (an earlier
release, say), interleaved run by run with this one so machine load affects both alike.
Medians of wall time and of CPU time (user + system, steadier than wall time on a loaded
machine) are printed with the load average. This is a measurement, not a test: nothing fails.
Targets: the largest shapes built and printed in under 1 s; the 2-slice dry-run at its former
cost (181 ms in the issue, on the machine it was measured on).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# the zone of each: one that offers the family (tpu7x: us-central1-c)
SHAPES = {
    "v6e-256 x2": ["--tpu-type", "v6e-256", "--num-slices", "2", "--zone", "us-east5-b"],
    "tpu7x-512 x36": ["--tpu-type", "tpu7x-512", "--num-slices", "36", "--zone", "us-central1-c"],
    "v5p-12288": ["--tpu-type", "v5p-12288", "--zone", "us-east5-b"],
    "v6e-256 x32": ["--tpu-type", "v6e-256", "--num-slices", "32", "--zone", "us-east5-b"],
}
COMMON = ["--cluster", "demo", "--spot", "--project", "my-project", "--dry-run"]


def child(checkout: Path, flags: list[str]) -> tuple[float, float]:
    """Wall time and CPU time (user + system) of one run of the command."""
    argv = [sys.executable, "-m", "xcli", "cluster", "create", *flags, *COMMON, "-o", "json"]
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, env=env, cwd=checkout, capture_output=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"{' '.join(argv)} failed: {done.stderr.decode()[-400:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def in_process(flags: list[str]) -> float:
    from xcli.catalog import lookup
    from xcli.plan.render import plan_json, plan_text
    from xcli.providers.gke.bodies import setup_steps
    from xcli.providers.gke.planner import plan_create
    from xcli.spec import Capacity, ClusterSpec

    slices = int(flags[flags.index("--num-slices") + 1]) if "--num-slices" in flags else 1
    accel = lookup(flags[1])
    zone = flags[flags.index("--zone") + 1]
    spec = ClusterSpec("demo", "my-project", zone, "gke", accel, Capacity("spot"), slices)
    start = time.perf_counter()
    plan = plan_create(spec, None, setup_steps)
    plan_json(plan)
    plan_text(plan)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--baseline", type=Path, help="another checkout to compare with")
    args = parser.parse_args()
    trees = {"this": ROOT} | ({"baseline": args.baseline.resolve()} if args.baseline else {})
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; "
          f"median of {args.runs} runs")  # fmt: skip
    print(f"{'shape':<15} {'tree':<9} {'wall ms':>8} {'cpu ms':>7} {'plan+print ms':>14}")
    for shape, flags in SHAPES.items():
        runs: dict[str, list[tuple[float, float]]] = {name: [] for name in trees}
        for _ in range(args.runs):
            for name, tree in trees.items():
                runs[name].append(child(tree, flags))
        inner = statistics.median(in_process(flags) for _ in range(max(3, args.runs // 3)))
        for name in trees:
            wall = statistics.median(r[0] for r in runs[name]) * 1000
            cpu = statistics.median(r[1] for r in runs[name]) * 1000
            extra = f"{inner * 1000:>14.0f}" if name == "this" else f"{'':>14}"
            print(f"{shape:<15} {name:<9} {wall:>8.0f} {cpu:>7.0f}{extra}")
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
