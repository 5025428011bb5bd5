"""A synchronous CPU-JAX loop for the straggler end-to-end test (every emulated worker runs it).

Each step: the host-side work (20 ms of input pipeline, the same on every worker, and the
worker's shard of the batch, made with `jax.make_array_from_callback`), then
`xcli.goodput.arrive(step)`, then one jitted sum over the array sharded across every process
(a cross-process collective), waited for with `jax.block_until_ready`. Every worker runs the
same code: a straggler is made by the drill knob XCLI_SLOW_WORKER (xcli.goodput), set on the
workload, not in here. (The input pipeline's wait also leaves the two shared cores some idle
time, so the runner reads each worker's lines as they come rather than in bursts.)

Usage: jax_loop.py STEPS
"""

from __future__ import annotations

import sys
import time

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

import xcli.goodput as goodput


def main() -> None:
    steps = int(sys.argv[1])
    jax.distributed.initialize()
    mesh = Mesh(np.array(jax.devices()), ("x",))
    sharding = NamedSharding(mesh, P("x"))
    shape = (jax.device_count() * 64, 64)
    total = jax.jit(jnp.sum)
    for step in range(steps):
        goodput.step(step) if jax.process_index() == 0 else None
        time.sleep(0.02)  # the input pipeline
        batch = np.full(shape, float(step), dtype=np.float32)
        x = jax.make_array_from_callback(shape, sharding, batch.__getitem__)
        goodput.arrive(step)
        jax.block_until_ready(total(x))
    jax.distributed.shutdown()


if __name__ == "__main__":
    main()
