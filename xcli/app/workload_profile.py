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


def _vm_plan(req: ProfileRequest, deps: Deps, vm: Any, ref: Any) -> tuple[Plan, Any]:
    from xcli import paths
    from xcli.plan.fanout import SshSettings, targets_for
    from xcli.plan.profile import Route, choose, plan_profile
    from xcli.workload.profile.hosts import vm_labels
    from xcli.workload.profile.live import ssh_handler

    t = req.target
    running = vm_labels(t.cluster, t.provider, req.name)
    workers = [w for w in vm.workers(ref) if w.label in running]
    chosen = set(choose([w.label for w in workers], req.hosts, None))
    picked = [w for w in workers if w.label in chosen]
    access = vm.ssh_access(ref)
    # the far end of each forward: the program's server on the worker's own loopback
    hosts = [ProfileHost(w.label, "127.0.0.1", w.profiler_port or req.port) for w in picked]
    targets = targets_for(picked, several_slices=True, user=access.user if access else None)
    routes = [Route(w.label, tg) for w, tg in zip(picked, targets, strict=True)]
    settings = SshSettings(
        known_hosts=(access.known_hosts if access else None) or paths.state_dir() / "known_hosts",
        identity=access.key_file if access else None,
        host_keys="yes",
    )
    shape = _shape(req, deps, req.log_dir or f"profiles/{req.name}")
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
    api = cluster_live(deps).api(ref)
    pods = pod_hosts(api, req.name, t.namespace)
    chosen = set(choose([p.label for p in pods], req.hosts, None))
    picked = [p for p in pods if p.label in chosen]
    hosts = [ProfileHost(p.label, p.ip, req.port) for p in picked]
    first = pods[0]  # any pod reaches every pod's IP; the first is always there
    shape = _shape(req, deps, str(req.log_dir))
    pod = (first.pod, first.container, t.namespace)
    plan = plan_profile(shape, hosts, "kube-exec", pod, hosts_from=_from(req))
    return plan, exec_handler(api)
