"""`xcli workload stragglers` and `workload report` at 2,304 workers x 2,000 steps.

    python benchmarks/stragglers.py [--slices 9] [--per-slice 256] [--steps 2000] [--runs 3]

The marks are generated (tests/workload/stragglers/synth.py: a synchronous job, 50 ms of device
time a step, 10 ms of host-side work, 1 ms of noise, one worker 150 ms late every step and
another stalled 2 s once). Each part runs in a fresh process of its own (the marks made there
first, outside the timing), so its peak memory is its own:
- verdict: `judge` over the marks (xcli/workload/stragglers/verdict.py), window 50;
- report: the verdict and the HTML page (xcli/workload/stragglers/html.py): time, size;
- gke: every pod's marks read through the Kubernetes API client (xcli/workload/jobset/
  arrivals.py: one paged list, one log read per pod, 16 at once) from the in-memory API server
  of the tests (tests/support/fakekube.py, over httpx's mock transport: no socket), each pod's
  log holding its 2,000 timestamped mark lines; requests counted at the server.

Printed: the median wall time of each part over --runs (and the CPU time of the last run: on
a shared machine steadier than wall time), the peak RSS of its process (the
generated marks included: they are the input), the HTML's bytes and the requests. Targets
(issue 33): verdict and report each under 5 s and 1 GB, the page under 3 MB. A measurement,
not a test: nothing here fails.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

GOODPUT: dict[str, Any] = {
    "scheduling_goodput": 0.97,
    "runtime_goodput": 0.93,
    "program_goodput": 0.38,
    "interruptions": [],
    "badput": {"startup": 60.0},
    "wall_seconds": 3_000.0,
    "productive_seconds": 2_800.0,
    "step_seconds": 0.21,
    "submitted": "2027-01-15T08:00:00.000+00:00",
    "end": "2027-01-15T08:50:00.000+00:00",
    "segments": [
        {
            "start": "2027-01-15T08:00:00.000+00:00",
            "end": "2027-01-15T08:50:00.000+00:00",
            "ended_by": None,
        }
    ],
}


def _marks(args: argparse.Namespace) -> Any:
    from tests.workload.stragglers.synth import arrivals

    return arrivals(
        args.slices, args.per_slice, args.steps, slow={"s4/w17": 0.15},
        stall=("s7/w200", args.steps // 2, 2.0),
    )  # fmt: skip


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def part_verdict(args: argparse.Namespace) -> dict[str, Any]:
    from xcli.workload.stragglers.verdict import judge

    marks = _marks(args)
    began, cpu = time.perf_counter(), time.process_time()
    verdict = judge("bench", marks, window=50)
    took, cpu = time.perf_counter() - began, time.process_time() - cpu
    named = [f"{s.worker}:{s.kind}" for s in verdict.stragglers]
    return {
        "seconds": took,
        "cpu_seconds": round(cpu, 2),
        "peak_mb": _peak_mb(),
        "stragglers": named,
    }


def part_report(args: argparse.Namespace) -> dict[str, Any]:
    from xcli.workload.stragglers.html import render
    from xcli.workload.stragglers.verdict import judge

    marks = _marks(args)
    began, cpu = time.perf_counter(), time.process_time()
    page = render(judge("bench", marks, window=50), GOODPUT).encode()
    took, cpu = time.perf_counter() - began, time.process_time() - cpu
    return {"seconds": took, "cpu_seconds": round(cpu, 2), "peak_mb": _peak_mb(),
            "html_bytes": len(page)}  # fmt: skip


def part_gke(args: argparse.Namespace) -> dict[str, Any]:
    from tests.support.cluster_access import InMemoryAccess
    from tests.support.fakekube import FakeKube
    from tests.support.workload_cluster import NOW, NS, FakeClock
    from tests.workload.stragglers.pods import log_of, pod_for
    from xcli.plan.cluster import ClusterRef
    from xcli.workload.jobset import live as workload_live
    from xcli.workload.jobset.arrivals import arrivals

    marks = _marks(args)
    fake, clock = FakeKube(), FakeClock()
    for n, worker in enumerate(marks.workers):
        pod = pod_for("bench", worker.worker, f"gke-node-{n:05d}")
        fake.put(f"{NS}/pods/{pod['metadata']['name']}", pod)
        fake.logs[pod["metadata"]["name"]] = log_of(worker)
    del marks
    access = InMemoryAccess(fake)
    live = workload_live.Live(access.kube_api, lambda: NOW, clock.monotonic, clock.sleep)
    ref = ClusterRef("demo", "my-proj", "us-east5-b", "gke")
    began = time.perf_counter()
    found = arrivals(live, ref, "bench")
    took = time.perf_counter() - began
    pages = sum(1 for r in fake.requests if r.url.path == f"{NS}/pods")
    logs = sum(1 for r in fake.requests if r.url.path.endswith("/log"))
    return {
        "seconds": took, "peak_mb": _peak_mb(), "requests": len(fake.requests),
        "list_pages": pages, "log_reads": logs, "workers": len(found.workers),
        "marks": sum(len(w.steps) for w in found.workers),
    }  # fmt: skip


PARTS = {"verdict": part_verdict, "report": part_report, "gke": part_gke}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--slices", type=int, default=9)
    ap.add_argument("--per-slice", type=int, default=256)
    ap.add_argument("--steps", type=int, default=2000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--part", choices=sorted(PARTS), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.part:
        print(json.dumps(PARTS[args.part](args)))
        return
    workers = args.slices * args.per_slice
    print(f"{workers} workers x {args.steps} steps; load average {os.getloadavg()[0]:.1f}")
    print("| part | median s | runs (s) | peak RSS MB | other |")
    print("|---|---|---|---|---|")
    for part in ("verdict", "report", "gke"):
        results = []
        for _ in range(args.runs):
            argv = [sys.executable, __file__, "--part", part, "--slices", str(args.slices),
                    "--per-slice", str(args.per_slice), "--steps", str(args.steps)]  # fmt: skip
            done = subprocess.run(argv, capture_output=True, text=True, check=True, cwd=ROOT)
            results.append(json.loads(done.stdout.splitlines()[-1]))
        times = [r["seconds"] for r in results]
        other = {k: v for k, v in results[-1].items() if k not in ("seconds", "peak_mb")}
        print(
            f"| {part} | {statistics.median(times):.2f} | "
            f"{', '.join(f'{t:.2f}' for t in times)} | "
            f"{max(r['peak_mb'] for r in results):.0f} | {json.dumps(other)} |"
        )
    print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
