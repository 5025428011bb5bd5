"""A CPU-JAX training loop for the recovery end-to-end tests (test_recovery_e2e.py).

Usage: recovery_loop.py MODE STATE_DIR. Each worker (TPU_WORKER_ID) keeps its checkpoint in
STATE_DIR/w<id>: every step is a real jitted matmul, waited for (block_until_ready) before its
mark; every 2 steps the step's checkpoint is written atomically and marked durable.
- resume: start after the latest checkpoint (what a well-behaved program does);
- hang: as resume, but the first run blocks for good after step 5 (a wedged collective);
- scratch: ignore the checkpoint, always start at step 0, and exit 3 after step 5 the first
  time (a crash), so the restart starts over.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path

import jax
import jax.numpy as jnp

import xcli.goodput as goodput

TOTAL, EVERY, STEP = 10, 2, 0.15


@jax.jit
def train_step(x: jax.Array) -> jax.Array:
    return jnp.tanh(x @ x) / 8.0


def main() -> None:
    mode, state = sys.argv[1], Path(sys.argv[2]) / f"w{os.environ['TPU_WORKER_ID']}"
    state.mkdir(parents=True, exist_ok=True)
    latest, first_run = state / "latest", not (state / "ran").exists()
    (state / "ran").touch()
    start = int(latest.read_text()) + 1 if latest.exists() and mode != "scratch" else 0
    x = jnp.ones((128, 128))
    for step in range(start, TOTAL):
        x = jax.block_until_ready(train_step(x))
        goodput.step(step)
        time.sleep(STEP)
        if step % EVERY == 1:
            tmp = state / f".latest.{os.getpid()}"
            tmp.write_text(str(step))
            os.replace(tmp, latest)
            goodput.checkpoint(step)
        if step == 5 and first_run and mode == "hang":
            threading.Event().wait()  # never set: blocked, as a hung collective would be
        if step == 5 and first_run and mode == "scratch":
            sys.exit(3)


if __name__ == "__main__":
    main()
