"""Progress marks for `xcli workload goodput`, printed by a training loop.

    import xcli.goodput as goodput

    goodput.flops_per_step(6 * n_params * tokens_per_step)  # optional, once: enables MFU
    for step in range(start, total):
        goodput.step(step)            # when step `step` starts
        batch = next(batches)         # host-side work: input, preprocessing
        goodput.arrive(step)          # on EVERY worker: about to enter the first collective
        state = train_step(state, batch)
        if step % 100 == 0 and save(step):
            goodput.checkpoint(step)  # once the checkpoint of `step` is durable

For `xcli workload profile`, the program serves the profiler on the port xcli gives it:

    jax.profiler.start_server(goodput.profiler_port())   # XCLI_PROFILER_PORT, else 9999

Each call prints one line, `XCLI_GOODPUT step=<n>` (or `checkpoint=<n>`,
`flops_per_step=<x>`, `arrive=<n>`), on stdout, and flushes it. xcli timestamps the line where
it reads it (the runner on VMs and locally, pod logs with timestamps on GKE), so the program
needs no clock; worker 0's step and checkpoint lines count for goodput, every worker's arrive
lines for `xcli workload stragglers` (docs/goodput.md, docs/stragglers.md). Only the standard
library is imported, and nothing else of xcli: the module can be copied into an image that
does not install xcli.

A straggler drill (docs/stragglers.md): `XCLI_SLOW_WORKER="s1/w2=0.15"` makes the worker whose
`XCLI_WORKER` is `s1/w2` (the local emulator sets it on every worker) wait 0.15 s in each
`arrive` before it marks, so it enters every collective late, as a slow host would;
`"s1/w2=2@7"` waits 2 s once, at step 7. The program is not changed; unset, nothing waits.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Mapping
from typing import TextIO

MARK = "XCLI_GOODPUT"
SLOW_VAR = "XCLI_SLOW_WORKER"  # the drill knob (module docstring)
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


def arrive(n: int, stream: TextIO | None = None) -> None:
    """This worker's host-side work for step `n` is done (its batch is ready) and it is about
    to enter the step's first collective. Call it on every worker: the one that arrives last,
    step after step, is the straggler the others wait for (docs/stragglers.md)."""
    value = _count(n, "arrive")
    delay = slow_delay(os.environ.get(SLOW_VAR, ""), os.environ.get("XCLI_WORKER", ""), n)
    if delay > 0:
        time.sleep(delay)
    _emit("arrive", value, stream)


def slow_delay(knob: str, worker: str, n: int) -> float:
    """The drill's wait for `worker` at step `n`: `WORKER=SECONDS` (every step) or
    `WORKER=SECONDS@STEP` (once), comma-separated for several workers; 0 when none applies.
    A knob that does not parse raises ValueError, so a drill cannot silently do nothing."""
    for item in filter(None, (part.strip() for part in knob.split(","))):
        who, sep, rest = item.partition("=")
        seconds, at, step = rest.partition("@")
        try:
            wait = float(seconds)
            once = int(step) if at else None
        except ValueError:
            wait = -1.0
            once = None
        if not sep or not who or not wait >= 0 or wait == float("inf"):
            raise ValueError(
                f"{SLOW_VAR}={knob!r}: each item is WORKER=SECONDS or WORKER=SECONDS@STEP, "
                "e.g. s1/w2=0.15"
            )
        if who == worker and (once is None or once == n):
            return wait
    return 0.0
