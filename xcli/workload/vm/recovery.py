"""`workload create --recover` in a VM-style run: before a restart, ask the provider whether
the cluster's capacity was taken back (a preempted queued resource), and if so run its
re-create plan, point the runner at the new VMs and note it in the run's timeline.

The plan is the provider's (Recoverer.plan_recover: same request as `cluster create`, wait,
new host keys pinned), run by the live executor with the provider's own handlers; its steps'
progress goes to the run's progress lines. Ctrl-C during it stops the executor: the queued
resource is left deleted or queued, and `xcli cluster wait` (or `cluster create`) picks it up.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from xcli.errors import Interrupted

if TYPE_CHECKING:
    from xcli.plan.cluster import ClusterRef
    from xcli.plan.contract import StepResult
    from xcli.plan.fanout import Target
    from xcli.plan.model import Step
    from xcli.providers.base import Recoverer

Say = Callable[[str], None]


class RecoveryInterrupted(Interrupted):
    """Ctrl-C while the cluster was being re-created: its VMs are gone, so there is nothing to
    stop; the cluster is left deleted or queued, and the hint says how to go on."""


@dataclass
class _SayReporter:
    say: Say

    def started(self, step: Step) -> None:
        self.say(f"recover: {step.summary}")

    def progress(self, step: Step, message: str) -> None:
        self.say(f"recover: {message}")

    def finished(self, result: StepResult) -> None:
        pass


@dataclass
class Recovery:
    recoverer: Recoverer
    ref: ClusterRef
    slices: int  # the run's slices (workers of slices 0..slices-1)
    targets: Callable[[Sequence[Any]], list[Target]]  # workers -> the runner's targets
    retarget: Callable[[list[Target]], None]  # hand the runner the new VMs
    noted: Callable[[str], None]  # the run's record: a reschedule in its timeline

    def __call__(self, say: Say, cancelled: threading.Event | None = None) -> bool:
        """`cancelled`: the run's Ctrl-C, handed to the re-create's executor (its waits end)."""
        from xcli.execute.live import LiveExecutor

        lost = self.recoverer.capacity_lost(self.ref)
        if lost is None:
            return False
        say(f"{lost.reason}: re-creating it with the same request")
        self.noted(lost.reason)
        plan = self.recoverer.plan_recover(self.ref, lost)
        executor = LiveExecutor(self.recoverer.handlers(self.ref), _SayReporter(say))
        if cancelled is not None:
            executor.cancelled = cancelled
        try:
            result = executor.run(plan)
        except (KeyboardInterrupt, Interrupted):  # a step saw the Ctrl-C: the rest stopped
            raise self._interrupted() from None
        errors = [r.error for r in result.results.values() if r.error is not None]
        if any(isinstance(e, Interrupted) for e in errors):
            raise self._interrupted()
        if errors:
            raise errors[0]
        workers = [w for w in self.recoverer.workers(self.ref) if w.slice < self.slices]
        self.retarget(self.targets(workers))
        say(f"re-created {self.ref.name}: starting the command on every worker again")
        return True

    def _interrupted(self) -> RecoveryInterrupted:
        where = f"--cluster {self.ref.name} --provider {self.recoverer.name}"
        return RecoveryInterrupted(
            f"interrupted while re-creating {self.ref.name}",
            hint=f"it is left as the re-create got it: `xcli cluster wait {where}` picks a "
            "queued one up (`xcli cluster create` re-creates a deleted one); then run the same "
            "`xcli workload create` again",
        )
