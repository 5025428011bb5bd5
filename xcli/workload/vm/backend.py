"""Workloads on VM-style clusters (queued resources, local): the WorkloadBackend for them.

`create` runs the same command on every worker of the chosen slices, through the broadcast
engine, with the JobSet-like restart rule (one worker failing stops and restarts all, up to
--max-restarts). The reads (xcli/workload/vm/read.py) use what the run records on this machine.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:  # typing only: `xcli workload --help` reads STATES
    from xcli.gateways.backoff import Sleep
    from xcli.workload.protocol import Session

# docs/workload.md: starting, running, succeeded, failed, stopped (deleted while running),
# lost (its driver on this machine is gone)
STATES = ("starting", "running", "succeeded", "failed", "stopped", "lost")
VmProvider = Literal["queued-resource", "local"]


def _event_sleep() -> Sleep:
    from xcli.gateways.backoff import event_sleep

    return event_sleep


@dataclass
class VmBackend:
    provider: VmProvider  # queued-resource or local: whose workers and SSH access to use
    # (seconds, cancel event): backoff.event_sleep, which Ctrl-C ends at once
    sleep: Sleep = field(default_factory=_event_sleep)
    kind: str = "vm"
    states: tuple[str, ...] = STATES
    needs_image: bool = False  # local: without an image the command runs as a plain process
    extra_restart_codes: bool = False  # every worker failure restarts (up to --max-restarts)
    previews_delete: bool = False
    # VM workloads are processes on the VMs, not Kubernetes objects: there is no namespace,
    # so the CLI refuses --namespace other than "default" for them (xcli/cli/workload_ns.py).
    namespaces: bool = False

    def create(self, session: Session, flags: Mapping[str, Any]) -> int:
        return _create(session, self.provider, flags)

    def list(self, session: Session, cluster: str, state: str | None) -> int:
        from xcli.workload.vm.read import vm_list

        return vm_list(session, cluster, state)

    def status(self, session: Session, cluster: str, name: str) -> int:
        from xcli.workload.vm.read import vm_status

        return vm_status(session, cluster, name)

    def goodput(self, session: Session, cluster: str, name: str) -> int:
        from xcli.workload.vm.read import vm_goodput

        return vm_goodput(session, cluster, name)

    def logs(
        self,
        session: Session,
        cluster: str,
        name: str,
        selection: tuple[str, str],
        follow: bool,
        since: str | None,
    ) -> int:
        from xcli.errors import UserError
        from xcli.workload.vm.read import vm_logs

        if since is not None:
            raise UserError("--since is for GKE workloads", hint="drop it; logs print in full")
        return vm_logs(session, cluster, name, selection, follow, self.sleep)

    def wait(
        self, session: Session, cluster: str, name: str, timeout: str | None, seconds: int | None
    ) -> int:
        from xcli.workload.vm.read import vm_wait

        code = vm_wait(session, cluster, name, seconds, self.sleep)
        if code == 124 and session.output == "text":
            session.say(f"workload {name}: still not finished after {timeout}", err=True)
        return code

    def delete(
        self,
        session: Session,
        cluster: str,
        name: str | None,
        state: str | None,
        older_than: tuple[str, int] | None,
    ) -> int:
        from xcli.errors import InternalError
        from xcli.workload.vm.read import vm_delete, vm_select

        if session.dry_run:  # callers refuse it first: previews_delete is False
            raise InternalError("a VM-style workload delete has no dry-run")
        seconds = older_than[1] if older_than else None
        names = [name] if name else vm_select(cluster, state, seconds)
        return vm_delete(session, cluster, names)


def _create(session: Session, provider: VmProvider, flags: Mapping[str, Any]) -> int:
    from xcli import paths
    from xcli.catalog import lookup
    from xcli.errors import UserError
    from xcli.gateways.output import OutputSink
    from xcli.gateways.workload_runner import BroadcastRunner
    from xcli.plan.fanout import SshSettings, targets_for
    from xcli.spec import Capacity
    from xcli.workload.request import spec_from_flags
    from xcli.workload.spec import ClusterMeta
    from xcli.workload.vm.handler import make_handler
    from xcli.workload.vm.plan import VmWorkloadRun

    if flags["output_manifest_file"] is not None or flags["cluster_metadata"] is not None:
        raise UserError(
            "--output-manifest-file and --cluster-metadata are for GKE workloads (JobSets)",
            hint=f"drop them for --provider {provider}",
        )
    from xcli.workload import storage_records
    from xcli.workload.spec import parse_env
    from xcli.workload.storage_mounts import with_env
    from xcli.workload.vm import mounts as vm_mounts
    from xcli.workload.vm.plan import check_env_values

    check_env_values(parse_env(flags["env_pairs"], flags["env_file"]))  # before any API call
    # only files on this machine: checked before any worker or API is asked
    mounts = storage_records.vm_mounts(flags, session.dry_run, flags["cluster"])
    vm_mounts.check(mounts.storages, provider)
    backend, cloud_vms = session.vm_access(provider)
    ref = session.cluster_ref(flags["cluster"], provider)
    workers = backend.workers(ref)
    access = backend.ssh_access(ref)
    # The workers usually carry it; otherwise describe() reads the cluster (more API calls).
    accelerator = next((w.accelerator for w in workers if w.accelerator), None)
    if accelerator is None:
        accelerator = str(backend.describe(ref).get("accelerator") or "")
    meta = ClusterMeta(
        name=ref.name,
        provider=provider,
        accelerator=lookup(accelerator),
        capacity=Capacity("on-demand"),
        num_slices=len({w.slice for w in workers}),
        source=f"{provider} cluster",
    )
    spec = with_env(spec_from_flags(flags, meta), mounts)
    if spec.accelerator != meta.accelerator:
        raise UserError(
            f"cluster {ref.name} has {meta.accelerator.name} workers, not {spec.accelerator.name}",
            hint="drop --tpu-type to use the cluster's",
        )
    if spec.num_slices > meta.num_slices:
        raise UserError(
            f"--num-slices {spec.num_slices}: cluster {ref.name} has "
            f"{meta.num_slices} slice{'s' if meta.num_slices > 1 else ''}",
            hint=f"drop --num-slices, or give at most {meta.num_slices}",
        )
    chosen = [w for w in workers if w.slice < spec.num_slices]
    plan = vm_mounts.plan(spec, chosen, cloud_vms, flags["detach"], mounts)
    (step,) = plan.steps
    assert isinstance(step, VmWorkloadRun)
    several = len({w.slice for w in chosen}) > 1
    targets = targets_for(chosen, several_slices=several, user=access.user)
    settings = SshSettings(
        known_hosts=access.known_hosts or paths.state_dir() / "known_hosts",
        identity=access.key_file,
        host_keys="yes" if access.pinned else "accept-new",  # as `xcli ssh` chooses
    )

    def handlers() -> dict[str, Any]:
        import shutil

        from xcli.gateways.workload_driver import record_run
        from xcli.workload.vm.runs import MARKS, RecordingRunner, refuse_running, run_dir

        engine: Literal["openssh", "asyncssh"] = "openssh" if shutil.which("ssh") else "asyncssh"
        folder = run_dir(ref.name, spec.name)
        refuse_running(folder)
        record_run(folder, step, targets, settings, engine)  # what `workload delete` stops
        sink = OutputSink(
            sys.stdout.buffer, sys.stderr.buffer, folder / "logs", append=True, marks=folder / MARKS
        )
        runner = BroadcastRunner(targets, settings, sink, engine)
        meta = {"name": spec.name, "cluster": ref.name, "provider": provider,
                "accelerator": spec.accelerator.name, "workers": len(chosen),
                "max_restarts": spec.max_restarts}  # fmt: skip

        def launcher(detached: Any) -> dict[str, Any]:
            from xcli.gateways.workload_driver import launch

            pid = launch(folder, detached, targets, settings, engine, meta)
            return {"driver_pid": pid}

        recording = RecordingRunner(runner, folder, meta, len(chosen), spec.max_restarts)
        delete = f"xcli workload delete {spec.name} --cluster {ref.name} --provider {provider}"
        return {"vm_workload": make_handler(recording, launcher, delete)}

    code = session.run_plan(plan, handlers)
    if flags["detach"] and not session.dry_run and session.output == "text":
        where = f"{spec.name} --cluster {ref.name} --provider {provider}"
        session.say(
            f"running in the background; follow it: xcli workload status {where}; "
            f"xcli workload logs {where} --follow; xcli workload wait {where}",
            err=True,
        )
    return code
