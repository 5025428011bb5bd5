"""`xcli workload stacks NAME`: where every host of a running workload is, now: py-spy's dump
on every host at once, identical stacks grouped (xcli/plan/stacks.py). VM-style clusters, over
the same SSH fan-out as `xcli ssh` (the core, `workload/profile/live.py:capture_stacks`, is
what other commands reuse)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from xcli.errors import UserError

if TYPE_CHECKING:
    from xcli.app.deps import Deps
    from xcli.app.workload import Target
    from xcli.plan.stacks import StackReport


@dataclass(frozen=True)
class StacksRequest:
    target: Target
    name: str


def stacks(req: StacksRequest, deps: Deps) -> StackReport | None:
    """The grouped stacks, or None after a dry-run (the plan was printed)."""
    import dataclasses

    from xcli import paths
    from xcli.app.where import ref_for
    from xcli.plan.fanout import SshSettings, targets_for
    from xcli.plan.stacks import plan_stacks
    from xcli.workload.profile.hosts import vm_labels
    from xcli.workload.profile.live import stacks_handler

    t = req.target
    registry = deps.registry
    vm = registry.vm_access(t.provider, registry.get(t.provider))
    if vm is None:
        raise UserError(
            f"xcli workload stacks reaches the hosts over SSH; {t.provider} workloads are pods",
            hint="on GKE: the py-spy dump of one pod through the exec API is not in this xcli yet",
        )
    ref = ref_for(registry, t.cluster, t.provider, t.where)
    running = vm_labels(t.cluster, t.provider, req.name)
    workers = [w for w in vm.workers(ref) if w.label in running]
    access = vm.ssh_access(ref)
    targets = targets_for(workers, several_slices=True, user=access.user if access else None)
    settings = SshSettings(
        known_hosts=(access.known_hosts if access else None) or paths.state_dir() / "known_hosts",
        identity=access.key_file if access else None,
        host_keys="yes" if access is not None and access.pinned else "accept-new",
    )
    choice = deps.choose_engine(targets, settings)
    if choice.engine == "asyncssh":
        settings = dataclasses.replace(settings, send_env=choice.send_env)
    plan = plan_stacks(t.cluster, req.name, targets, settings, engine=choice.engine)
    run = deps.run_quiet(plan, lambda: {"ssh": stacks_handler()})
    if run is None:
        return None
    step = run.results["ssh"]
    if step.error is not None:
        raise step.error
    report: StackReport = step.outputs["report"]
    return report
