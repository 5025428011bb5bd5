"""Progress marks for `xcli workload goodput`, printed by a training loop.

    import xcli.goodput as goodput

    goodput.flops_per_step(6 * n_params * tokens_per_step)  # optional, once: enables MFU
    for step in range(start, total):
        goodput.step(step)            # when step `step` starts
        ...
        if step % 100 == 0 and save(step):
            goodput.checkpoint(step)  # once the checkpoint of `step` is durable

For `xcli workload profile`, the program serves the profiler on the port xcli gives it:

    jax.profiler.start_server(goodput.profiler_port())   # XCLI_PROFILER_PORT, else 9999

Each mark prints one line, `XCLI_GOODPUT step=<n>` (or `checkpoint=<n>`,
`flops_per_step=<x>`), on stdout, and flushes it. xcli timestamps the line where it reads it
(the runner on VMs and locally, pod logs with timestamps on GKE), so the program needs no
clock; worker 0's lines count (docs/goodput.md). Only the standard library is imported, and
nothing else of xcli: the module can be copied into an image that does not install xcli.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from typing import TextIO

MARK = "XCLI_GOODPUT"
PROFILER_PORT_VAR = "XCLI_PROFILER_PORT"
# The port the JAX docs' examples and ML Diagnostics' on-demand capture open (xprof_port =
# 9999 in google-cloud-mldiagnostics core/create_mlrun.py); every real host uses it on its
# own address. The local emulator's hosts share one address, so each gets its own there.
DEFAULT_PROFILER_PORT = 9999


def _emit(key: str, value: str, stream: TextIO | None) -> None:
    out = stream if stream is not None else sys.stdout
    out.write(f"{MARK} {key}={value}\n")
    out.flush()


def _count(n: int, what: str) -> str:
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ValueError(f"{what} must be a whole number >= 0, not {n!r}")
    return str(n)


def step(n: int, stream: TextIO | None = None) -> None:
    """Step `n` starts now."""
    _emit("step", _count(n, "step"), stream)


def checkpoint(n: int, stream: TextIO | None = None) -> None:
    """The checkpoint of step `n` is durable now (written and committed)."""
    _emit("checkpoint", _count(n, "checkpoint"), stream)


def flops_per_step(x: float, stream: TextIO | None = None) -> None:
    """The model FLOPs of one training step, all chips together (no rematerialisation)."""
    value = float(x)
    if not value > 0 or value == float("inf"):
        raise ValueError(f"flops_per_step must be a positive number, not {x!r}")
    _emit("flops_per_step", repr(value), stream)


def profiler_port(environ: Mapping[str, str] | None = None) -> int:
    """The port xcli gives this worker for its profiler server (XCLI_PROFILER_PORT), else 9999."""
    env = os.environ if environ is None else environ
    text = env.get(PROFILER_PORT_VAR, "").strip()
    if not text:
        return DEFAULT_PROFILER_PORT
    if not text.isdigit() or not 0 < int(text) < 65536:
        raise ValueError(f"{PROFILER_PORT_VAR}={text!r} is not a TCP port")
    return int(text)
