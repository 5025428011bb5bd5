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
    from xcli.app.workload_profile import DRY_NOTE, sorted_labels, vm_workers, workers_read
    from xcli.plan.fanout import SshSettings, Target, targets_for
    from xcli.plan.hosts_read import WORKER_USER, after_read, worker_ref
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
    access = vm.ssh_access(ref)
    user = access.user if access else None
    found = vm_workers(deps, vm, ref, t.provider)
    if found is None:  # a dry-run on a cloud: address and login are what the workers read gives
        targets = tuple(
            Target(label, worker_ref(label), user=WORKER_USER) for label in sorted_labels(running)
        )
    else:
        workers = [w for w in found if w.label in running]
        targets = targets_for(workers, several_slices=True, user=user)
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
    if found is None:
        plan = after_read(plan, workers_read(ref, req.name), DRY_NOTE)
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

    def read() -> tuple[Any, list[PodTarget]]:  # the pods, through the Kubernetes API
        api = cluster_live(deps).api(ref)
        hosts = pod_hosts(api, req.name, t.namespace)
        return api, [PodTarget(p.label, p.pod, p.container) for p in hosts]

    found = deps.record.read(read)
    if found is None:  # a dry-run reads no cluster: the plan reads the pods first
        from xcli.plan.run_time_hosts import plan_pod_stacks_at_run_time
        from xcli.workload.jobset.plan import gke_cluster_path

        path = gke_cluster_path(ref.project, ref.zone, ref.name)
        plan = plan_pod_stacks_at_run_time(path, t.cluster, req.name, t.namespace)
        deps.run_quiet(plan, lambda: {})
        return None
    api, pods = found
    plan = plan_pod_stacks(t.cluster, req.name, t.namespace, pods)
    run = deps.run_quiet(plan, lambda: {"pod_exec": pod_stacks_handler(api)})
    if run is None:
        return None
    step = run.results["stacks"]
    if step.error is not None:
        raise step.error
    report: StackReport = step.outputs["report"]
    return report
