"""`xcli workload stacks NAME`: where every host of a running workload is, now: py-spy's dump
on every host at once, identical stacks grouped (xcli/plan/stacks.py). VM-style clusters, over
the same SSH fan-out as `xcli ssh` (the core, `gateways/stacks.py:capture_stacks`, is what
`--hang-after` runs too); GKE, one pods/exec per pod, at most 64 streams at once."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

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
    ref = ref_for(registry, t.cluster, t.provider, t.where)
    if vm is None:
        return _pods(req, deps, ref)
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
    cloud_vm = registry.capabilities(t.provider).cloud  # Cloud TPU VMs: a container, sudo
    plan = plan_stacks(
        t.cluster, req.name, targets, settings, engine=choice.engine, cloud_vm=cloud_vm
    )
    run = deps.run_quiet(plan, lambda: {"ssh": stacks_handler()})
    if run is None:
        return None
    step = run.results["ssh"]
    if step.error is not None:
        raise step.error
    report: StackReport = step.outputs["report"]
    return report


def _pods(req: StacksRequest, deps: Deps, ref: Any) -> StackReport | None:
    """GKE: one pods/exec per running pod (gateways/kube/exec.py), 64 streams at once."""
    from xcli.app.workload_facts import cluster_live
    from xcli.plan.stacks import PodTarget, plan_pod_stacks
    from xcli.workload.profile.hosts import pod_hosts
    from xcli.workload.profile.live import pod_stacks_handler

    t = req.target
    api = cluster_live(deps).api(ref)
    pods = [PodTarget(p.label, p.pod, p.container) for p in pod_hosts(api, req.name, t.namespace)]
    plan = plan_pod_stacks(t.cluster, req.name, t.namespace, pods)
    run = deps.run_quiet(plan, lambda: {"pod_exec": pod_stacks_handler(api)})
    if run is None:
        return None
    step = run.results["stacks"]
    if step.error is not None:
        raise step.error
    report: StackReport = step.outputs["report"]
    return report
