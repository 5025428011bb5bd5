"""Workloads on VM-style clusters (queued resources, local): the `vm` WorkloadKind.

`create` runs the same command on every worker of the chosen slices, through the broadcast
engine, with the JobSet-like restart rule (one worker failing stops and restarts all, up to
--max-restarts). The reads (xcli/workload/vm/read.py) use what the run records on this machine.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, cast

from xcli.workload.protocol import (
    WORKER_BY_WORKER,
    Context,
    Creation,
    Deletion,
    Listing,
    LogLine,
    LogView,
    Outcome,
    Report,
    Selection,
)

if TYPE_CHECKING:
    from xcli.gateways.backoff import Sleep
    from xcli.plan.cluster import ClusterRef, SshAccess, Worker
    from xcli.plan.vm_run import VmWorkloadRun
    from xcli.providers import Capabilities
    from xcli.providers.base import Recoverer, VmAccess
    from xcli.workload.backends import KindGateways
    from xcli.workload.request import WorkloadRequest
    from xcli.workload.spec import ClusterMeta, WorkloadSpec
    from xcli.workload.stragglers.marks import Arrivals


def _event_sleep() -> Sleep:
    from xcli.gateways.backoff import event_sleep

    return event_sleep


@dataclass
class VmKind:
    provider: str  # whose workers and SSH access to use (queued-resource, local)
    # how its VMs mount storages, and whether a run without an image is a plain process
    # (the provider's registry capabilities: vm_storage, plain_process)
    capabilities: Capabilities
    # (seconds, cancel event): backoff.event_sleep, which Ctrl-C ends at once
    sleep: Sleep = field(default_factory=_event_sleep)

    @classmethod
    def build(cls, provider: str, capabilities: Capabilities, gateways: KindGateways) -> VmKind:
        if gateways.sleep is not None:
            return cls(provider, capabilities, gateways.sleep)
        return cls(provider, capabilities)

    def plan_create(self, ctx: Context, request: WorkloadRequest) -> Creation:
        return _create(ctx, self.provider, self.capabilities, request)

    def list(self, ctx: Context, cluster: str, state: str | None) -> Listing:
        from xcli.workload.vm.read import vm_list

        return vm_list(cluster, state)

    def status(self, ctx: Context, cluster: str, name: str) -> Report:
        from xcli.workload.vm.read import vm_status

        return vm_status(cluster, name)

    def goodput(self, ctx: Context, cluster: str, name: str) -> Report:
        from xcli.workload.vm.read import vm_goodput

        return vm_goodput(cluster, name)

    def arrivals(
        self, ctx: Context, cluster: str, name: str, since_seconds: int | None
    ) -> Arrivals:
        from xcli.workload.vm.read import vm_arrivals

        return vm_arrivals(cluster, name)  # a local file: `since` is applied to the marks

    def logs(
        self,
        ctx: Context,
        cluster: str,
        name: str,
        selection: tuple[str, str],
        follow: bool,
        since: str | None,
        view: LogView = WORKER_BY_WORKER,
    ) -> Iterator[LogLine]:
        from xcli.errors import UserError
        from xcli.workload.vm.read import vm_logs

        if since is not None:
            raise UserError("--since is for GKE workloads", hint="drop it; logs print in full")
        return vm_logs(cluster, name, selection, follow, self.sleep, view)

    def wait(
        self, ctx: Context, cluster: str, name: str, timeout: str | None, seconds: int | None
    ) -> Outcome:
        from xcli.workload.vm.read import vm_wait

        return vm_wait(ctx.say, cluster, name, (timeout, seconds), self.sleep)

    def plan_delete(
        self,
        ctx: Context,
        cluster: str,
        name: str | None,
        selection: Selection,
    ) -> Deletion:
        """Not a plan: a VM run is stopped through its driver on this machine, so the
        delete has no dry-run (KindEntry.previews_delete is False; the CLI refuses it)."""
        from xcli.workload.vm.read import vm_delete, vm_select

        older = selection.older_than
        seconds = older[1] if older else None
        names = [name] if name else vm_select(cluster, selection.state, seconds)
        if name is None:
            names = [n for n in names if selection.name_contains in n]
        return vm_delete(cluster, names)


def _create(ctx: Context, provider: str, caps: Capabilities, request: WorkloadRequest) -> Creation:
    from xcli.errors import InternalError, UserError
    from xcli.plan.vm_run import VmWorkloadRun
    from xcli.workload import storage_records
    from xcli.workload.request import spec_from_request
    from xcli.workload.spec import parse_env
    from xcli.workload.storage_mounts import with_env
    from xcli.workload.vm import mounts as vm_mounts
    from xcli.workload.vm.plan import check_env_values

    check_env_values(parse_env(request.env_pairs, request.env_file))  # before any API call
    # only files on this machine: checked before any worker or API is asked
    mounts = storage_records.vm_mounts(request)
    vm_mounts.check(mounts.storages, caps.vm_storage)
    if ctx.vm_access is None:
        raise InternalError(f"no VM access handed in for the {provider} provider")
    access_of, cloud_vms = ctx.vm_access()
    ref = ctx.cluster_ref(request.cluster)
    workers = access_of.workers(ref)
    access = access_of.ssh_access(ref)
    meta = _cluster_meta(ref, provider, caps, workers, access_of)
    spec = with_env(spec_from_request(request, meta), mounts)
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
    plan = vm_mounts.plan(spec, chosen, cloud_vms, request.detach, mounts)
    (step,) = plan.steps
    assert isinstance(step, VmWorkloadRun)
    recoverer = cast("Recoverer", access_of) if caps.recover and spec.recover else None
    run = _Run(provider, ref, spec, chosen, access, step, recoverer, request.show_marks)
    follow = None
    if request.detach:
        where = f"{spec.name} --cluster {ref.name} --provider {provider}"
        follow = (
            f"running in the background; follow it: xcli workload status {where}; "
            f"xcli workload logs {where} --follow; xcli workload wait {where}"
        )
    return Creation(plan, run.handlers, follow=follow)


def _cluster_meta(
    ref: ClusterRef, provider: str, caps: Capabilities, workers: list[Worker], vms: VmAccess
) -> ClusterMeta:
    from xcli.catalog import lookup
    from xcli.spec import Capacity
    from xcli.workload.spec import ClusterMeta

    # The workers usually carry it; otherwise describe() reads the cluster (more API calls).
    accelerator = next((w.accelerator for w in workers if w.accelerator), None)
    if accelerator is None:
        accelerator = str(vms.describe(ref).get("accelerator") or "")
    return ClusterMeta(
        name=ref.name,
        provider=provider,
        accelerator=lookup(accelerator),
        capacity=Capacity("on-demand"),
        num_slices=len({w.slice for w in workers}),
        source=f"{provider} cluster",
        plain_process=caps.plain_process,
    )


@dataclass(frozen=True)
class _Run:
    """What the live handler of a VM run needs: its record folder, targets and engine."""

    provider: str
    ref: ClusterRef
    spec: WorkloadSpec
    chosen: list[Worker]
    access: SshAccess
    step: VmWorkloadRun
    recoverer: Recoverer | None = None  # --recover on a provider that can re-create
    show_marks: bool = False  # --show-marks: the goodput mark lines in the live stream too

    def handlers(self) -> dict[str, Any]:
        import shutil

        from xcli import paths
        from xcli.gateways.ssh.output import OutputSink
        from xcli.gateways.workload_driver import record_run
        from xcli.gateways.workload_runner import BroadcastRunner
        from xcli.plan.fanout import SshSettings, targets_for
        from xcli.vm_runs import MARKS, RecordingRunner, refuse_running, run_dir
        from xcli.workload.vm.handler import make_handler

        spec, chosen, access = self.spec, self.chosen, self.access
        several = len({w.slice for w in chosen}) > 1
        targets = targets_for(chosen, several_slices=several, user=access.user)
        settings = SshSettings(
            known_hosts=access.known_hosts or paths.state_dir() / "known_hosts",
            identity=access.key_file,
            host_keys="yes" if access.pinned else "accept-new",  # as `xcli ssh` chooses
        )
        engine: Literal["openssh", "asyncssh"] = "openssh" if shutil.which("ssh") else "asyncssh"
        folder = run_dir(self.ref.name, spec.name)
        refuse_running(folder)
        record_run(folder, self.step, targets, settings, engine)  # what `workload delete` stops
        sink = OutputSink(
            sys.stdout.buffer, sys.stderr.buffer, folder / "logs", append=True,
            marks=folder / MARKS, show_marks=self.show_marks, times=True,
        )  # fmt: skip
        from xcli.plan.hang import HangWatch

        watch = HangWatch(spec.hang_after) if spec.hang_after is not None else None
        runner = BroadcastRunner(targets, settings, sink, engine, watch, self.step.dump)
        meta = {"name": spec.name, "cluster": self.ref.name, "provider": self.provider,
                "accelerator": spec.accelerator.name, "workers": len(chosen),
                "max_restarts": spec.max_restarts}  # fmt: skip

        def launcher(detached: Any) -> dict[str, Any]:
            from xcli.gateways.workload_driver import launch

            pid = launch(folder, detached, targets, settings, engine, meta)
            return {"driver_pid": pid}

        recording = RecordingRunner(runner, folder, meta, len(chosen), spec.max_restarts)
        delete = (
            f"xcli workload delete {spec.name} --cluster {self.ref.name} --provider {self.provider}"
        )
        recover = None
        if self.recoverer is not None:
            from xcli.workload.vm.recovery import Recovery

            def retargets(workers: Any) -> Any:
                return targets_for(workers, several_slices=several, user=access.user)

            recover = Recovery(self.recoverer, self.ref, spec.num_slices, retargets,
                               runner.retarget, recording.rescheduled)  # fmt: skip
        return {"vm_workload": make_handler(recording, launcher, delete, recover)}
