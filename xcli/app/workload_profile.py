"""`xcli workload profile NAME`: an XProf trace of every chosen host of a running workload, at
once, into one session folder (xcli/plan/profile.py; docs/profile.md).

VM-style clusters (the provider's VmAccess): the workers the workload runs on, each reached
over SSH with a port forward to its profiler port (the worker's own XCLI_PROFILER_PORT on the
local emulator, --port elsewhere). GKE (the provider's ClusterAccess): the JobSet's running
pods, captured by one exec into the first of them against every pod's IP.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from xcli.errors import UserError
from xcli.plan.profile import HostChoice, ProfileHost, ProfileRequestShape, ProfileResult

if TYPE_CHECKING:
    from xcli.app.deps import Deps
    from xcli.app.workload import Target
    from xcli.plan.model import Plan


@dataclass(frozen=True)
class ProfileRequest:
    target: Target
    name: str
    hosts: HostChoice
    duration_ms: int
    port: int
    log_dir: str | None  # None: profiles/<workload> (VM-style); GKE needs gs://
    session: str | None  # None: the time now, as XProf names its sessions


def session_name(deps: Deps) -> str:
    return deps.timing.now().strftime("%Y_%m_%d_%H_%M_%S")


def profile(req: ProfileRequest, deps: Deps) -> ProfileResult | None:
    """The capture's result, or None after a dry-run (the plan was printed)."""
    from xcli.app.where import ref_for

    t = req.target
    registry = deps.registry
    ref = ref_for(registry, t.cluster, t.provider, t.where)
    vm = registry.vm_access(t.provider, registry.get(t.provider))
    if vm is not None:
        plan, handler = _vm_plan(req, deps, vm, ref)
    else:
        plan, handler = _pod_plan(req, deps, ref)
    if req.hosts.kind == "stragglers":
        from xcli.app.profile_hosts import from_verdict

        handler = from_verdict(req, deps, handler)
    run = deps.run_quiet(plan, lambda: {"profile_capture": handler})
    if run is None:
        return None
    step = run.results["profile"]
    if step.error is not None:
        raise step.error
    result: ProfileResult = step.outputs["result"]
    return result


def _shape(req: ProfileRequest, deps: Deps, log_dir: str) -> ProfileRequestShape:
    session = req.session or session_name(deps)
    return ProfileRequestShape(req.target.cluster, req.name, log_dir, session, req.duration_ms)


def _from(req: ProfileRequest) -> str | None:
    return "stragglers" if req.hosts.kind == "stragglers" else None


def vm_workers(deps: Deps, vm: Any, ref: Any, provider: str) -> list[Any] | None:
    """The workers of a VM-style cluster, or None on a dry-run of a cloud provider: their
    addresses come from the cloud's API (queued resources: the Cloud TPU API), which a dry-run
    does not read; the local emulator's come from this machine's files, read either way."""
    if deps.registry.capabilities(provider).cloud:
        found: list[Any] | None = deps.record.read(lambda: vm.workers(ref))
        return found
    return list(vm.workers(ref))


def sorted_labels(labels: set[str]) -> list[str]:
    """`sS/wW` labels in (slice, worker) order, the order the providers list workers in."""
    import re

    def key(label: str) -> tuple[int, int]:
        found = re.fullmatch(r"s(\d+)/w(\d+)", label)
        return (int(found.group(1)), int(found.group(2))) if found else (1 << 30, 0)

    return sorted(labels, key=key)


def workers_read(ref: Any, name: str) -> Any:
    """The dry-run's first step on a queued resource: the reads that find the workers."""
    from xcli.plan.hosts_read import tpu_workers_read

    outputs = {
        "sS/wW": "each worker's address: its node's networkEndpoints[W], external IP else internal",
        "user": "the login xcli registered for its key (the access record, else the node's "
        "ssh-keys metadata)",
    }
    return tpu_workers_read(ref.project, ref.zone, ref.name, name, outputs)


DRY_NOTE = "dry-run: the workers are read when the run starts; the refs are what that read fills in"


def _vm_plan(req: ProfileRequest, deps: Deps, vm: Any, ref: Any) -> tuple[Plan, Any]:
    from xcli import paths
    from xcli.plan.fanout import SshSettings, targets_for
    from xcli.plan.hosts_read import after_read
    from xcli.plan.profile import Route, choose, plan_profile
    from xcli.workload.profile.hosts import vm_labels
    from xcli.workload.profile.live import ssh_handler

    t = req.target
    running = vm_labels(t.cluster, t.provider, req.name)
    access = vm.ssh_access(ref)
    settings = SshSettings(
        known_hosts=(access.known_hosts if access else None) or paths.state_dir() / "known_hosts",
        identity=access.key_file if access else None,
        host_keys="yes",
    )
    shape = _shape(req, deps, req.log_dir or f"profiles/{req.name}")
    found = vm_workers(deps, vm, ref, t.provider)
    if found is None:  # a dry-run: the far ends are the workers' own loopback, known already
        chosen = choose(sorted_labels(running), req.hosts, None)
        hosts = [ProfileHost(label, "127.0.0.1", req.port) for label in chosen]
        plan = plan_profile(shape, hosts, "ssh-forward", hosts_from=_from(req))
        # no routes: a dry-run builds no handler (Deps.run_quiet prints the plan)
        return after_read(plan, workers_read(ref, req.name), DRY_NOTE), ssh_handler([], settings)
    workers = [w for w in found if w.label in running]
    picked_labels = set(choose([w.label for w in workers], req.hosts, None))
    picked = [w for w in workers if w.label in picked_labels]
    # the far end of each forward: the program's server on the worker's own loopback
    hosts = [ProfileHost(w.label, "127.0.0.1", w.profiler_port or req.port) for w in picked]
    targets = targets_for(picked, several_slices=True, user=access.user if access else None)
    routes = [Route(w.label, tg) for w, tg in zip(picked, targets, strict=True)]
    plan = plan_profile(shape, hosts, "ssh-forward", hosts_from=_from(req))
    return plan, ssh_handler(routes, settings)


def _pod_plan(req: ProfileRequest, deps: Deps, ref: Any) -> tuple[Plan, Any]:
    from xcli.app.workload_facts import cluster_live
    from xcli.plan.profile import choose, plan_profile
    from xcli.workload.profile.hosts import pod_hosts
    from xcli.workload.profile.live import exec_handler

    t = req.target
    if not (req.log_dir or "").startswith("gs://"):
        raise UserError(
            "on GKE the trace is written by the capturing pod: --log-dir must be gs://BUCKET/PATH",
            hint="give a bucket the workload's service account can write, e.g. "
            f"--log-dir gs://my-bucket/profiles/{req.name}",
        )
    shape = _shape(req, deps, str(req.log_dir))

    def read() -> tuple[Any, list[Any]]:  # the pods, through the cluster's Kubernetes API
        api = cluster_live(deps).api(ref)
        return api, pod_hosts(api, req.name, t.namespace)

    found = deps.record.read(read)
    if found is None:  # a dry-run reads no cluster: the plan reads the pods first
        from xcli.plan.run_time_hosts import plan_profile_pods
        from xcli.workload.jobset.plan import gke_cluster_path

        path = gke_cluster_path(ref.project, ref.zone, ref.name)
        plan = plan_profile_pods(shape, path, t.namespace, req.hosts, req.port)
        return plan, None  # never run: a dry-run builds no handler
    api, pods = found
    chosen = set(choose([p.label for p in pods], req.hosts, None))
    picked = [p for p in pods if p.label in chosen]
    hosts = [ProfileHost(p.label, p.ip, req.port) for p in picked]
    first = pods[0]  # any pod reaches every pod's IP; the first is always there
    pod = (first.pod, first.container, t.namespace)
    plan = plan_profile(shape, hosts, "kube-exec", pod, hosts_from=_from(req))
    return plan, exec_handler(api)
