"""Every host's Python stacks, grouped: a plan_stacks Broadcast step (xcli/plan/stacks.py) run
over the SSH fan-out, every host at once in its sliding window, and what py-spy printed split
back per host. The one way xcli dumps stacks on VM-style clusters: `xcli workload stacks`
(workload/profile/live.py:stacks_handler) and `--hang-after`'s dump when a run hangs
(gateways/workload_runner.py) both call `capture_stacks`."""

from __future__ import annotations

import io
import threading

from xcli.gateways.ssh.broadcast import run_broadcast
from xcli.gateways.ssh.output import OutputSink
from xcli.plan.fanout import Broadcast
from xcli.plan.stacks import StackReport, group_stacks, split_prefixed


def capture_stacks(step: Broadcast, cancelled: threading.Event | None = None) -> StackReport:
    """Run `step` (each target's dump command) and group the stacks. Nothing is streamed to
    the terminal; a host with no stack is named with the last line it said on stderr (the
    dump command's `xcli: ...` reason) or why it was not reached."""
    out, err = io.BytesIO(), io.BytesIO()
    result = run_broadcast(step, OutputSink(out, err, None), cancelled)
    labels = [t.label for t in step.targets]
    texts = split_prefixed(out.getvalue(), labels)
    notes = split_prefixed(err.getvalue(), labels)
    dumps, failed = {}, {}
    for outcome in result.outcomes:
        if outcome.ok and texts.get(outcome.label, "").strip():
            dumps[outcome.label] = texts[outcome.label]
        else:
            said = [x for x in notes.get(outcome.label, "").splitlines() if x.strip()]
            failed[outcome.label] = said[-1].removeprefix("xcli: ") if said else outcome.reason
    return group_stacks(dumps, failed)
