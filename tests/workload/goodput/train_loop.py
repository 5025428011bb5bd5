"""A plain training loop for the goodput end-to-end test: no JAX (it would add nothing here).

Usage: train_loop.py CKPT_DIR TRUTH_DIR. Every worker (TPU_WORKER_ID) keeps its own checkpoint
folder and writes its own ground truth (JSON lines with its own clock) for the test to compare
with xcli's report. Each step sleeps STEP seconds; every K steps the step's checkpoint is
written atomically (temporary file, then rename); on start the loop resumes after the latest
checkpoint, spending RESTORE seconds to restore it (INIT seconds on a fresh start).
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import xcli.goodput as goodput

STEP, K, TOTAL, INIT, RESTORE = 0.4, 5, 26, 0.5, 8.0
FLOPS_PER_STEP = 1e15


def main() -> None:
    worker = os.environ["TPU_WORKER_ID"]
    ckpt = Path(sys.argv[1]) / f"w{worker}"
    ckpt.mkdir(parents=True, exist_ok=True)
    truth = (Path(sys.argv[2]) / f"w{worker}.jsonl").open("a")

    def note(event: str, **values: object) -> None:
        truth.write(json.dumps({"event": event, "at": time.time(), **values}) + "\n")
        truth.flush()

    note("start", pid=os.getpid())
    latest = ckpt / "latest"
    if latest.exists():
        restored = int(latest.read_text())
        time.sleep(RESTORE)
        first = restored + 1
        note("restored", step=restored)
    else:
        time.sleep(INIT)
        first = 0
    goodput.flops_per_step(FLOPS_PER_STEP)
    for step in range(first, TOTAL):
        goodput.step(step)
        note("step", step=step)
        time.sleep(STEP)
        if (step + 1) % K == 0:
            tmp = ckpt / f".latest.{os.getpid()}"
            tmp.write_text(str(step))
            os.replace(tmp, latest)
            goodput.checkpoint(step)
            note("checkpoint", step=step)
    note("end")


if __name__ == "__main__":
    main()
