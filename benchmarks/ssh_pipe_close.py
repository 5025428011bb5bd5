"""`xcli ssh --worker=all --command LOOP | head -1`: seconds from the reader going away to
xcli's exit, per engine, on a local-provider cluster (issue 37: on Python 3.10/3.11 the
asyncssh engine could hang for ever, cpython#86296).

    pip install -e . && python benchmarks/ssh_pipe_close.py [--reps 20] [--tpu-type v5litepod-16]

Creates a local cluster in a temporary XCLI_HOME, runs each engine --reps times (interleaved),
prints the median and the worst close-to-exit time and how many runs did not end within 15 s,
then deletes the cluster.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--tpu-type", default="v5litepod-16")
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="xcli-pipe-"))
    env = {**os.environ, "XCLI_HOME": str(home / "state"), "HOME": str(home)}
    xcli = [sys.executable, "-m", "xcli"]
    where = ["--provider", "local", "--cluster", "pipe"]
    subprocess.run([*xcli, "cluster", "create", *where, "--tpu-type", args.tpu_type],
                   env=env, check=True, capture_output=True)  # fmt: skip
    times: dict[str, list[float]] = {"asyncssh": [], "openssh": []}
    hangs = dict.fromkeys(times, 0)
    try:
        for _ in range(args.reps):
            for engine in times:
                argv = [*xcli, "ssh", *where, "--worker=all", "--engine", engine,
                        "--command", "while :; do echo line; sleep 0.01; done"]  # fmt: skip
                proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL)  # fmt: skip
                assert proc.stdout is not None
                proc.stdout.readline()
                start = time.monotonic()
                proc.stdout.close()
                try:
                    proc.wait(timeout=15)
                    times[engine].append(time.monotonic() - start)
                except subprocess.TimeoutExpired:
                    hangs[engine] += 1
                    proc.kill()
                    proc.wait()
    finally:
        subprocess.run([*xcli, "cluster", "delete", *where, "--yes"], env=env,
                       capture_output=True)  # fmt: skip
    print(f"python {sys.version.split()[0]}, {args.tpu_type}, {args.reps} runs per engine")
    for engine, seconds in times.items():
        if seconds:
            print(f"{engine:9} median {statistics.median(seconds):.2f}s  worst "
                  f"{max(seconds):.2f}s  hangs {hangs[engine]}")  # fmt: skip
        else:
            print(f"{engine:9} every run hung ({hangs[engine]})")
    return 1 if any(hangs.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
