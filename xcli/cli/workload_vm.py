"""`xcli workload create` on VM-style clusters (queued resources, local): the same command on
every worker of the chosen slices, through the broadcast engine, with the JobSet-like restart
rule (one worker failing stops and restarts all, up to --max-restarts)."""

from __future__ import annotations

import sys
from typing import Any, Literal

import click

from xcli.cli.common import Common, run_plan


def create_on_vms(common: Common, flags: dict[str, Any]) -> int:
    from xcli import paths
    from xcli.catalog import lookup
    from xcli.cli.cluster import _ref
    from xcli.cli.workload_flags import spec_from_flags
    from xcli.errors import UserError
    from xcli.execute.fanout import OutputSink
    from xcli.gateways.workload_runner import BroadcastRunner
    from xcli.plan.fanout import SshSettings, targets_for
    from xcli.providers import get_provider
    from xcli.spec import Capacity
    from xcli.workload.spec import ClusterMeta
    from xcli.workload.vm.handler import make_handler
    from xcli.workload.vm.plan import VmWorkloadRun, plan_vm_workload

    provider = flags["provider"]
    if flags["output_manifest_file"] is not None or flags["cluster_metadata"] is not None:
        raise UserError(
            "--output-manifest-file and --cluster-metadata are for GKE workloads (JobSets)",
            hint=f"drop them for --provider {provider}",
        )
    backend = get_provider(provider)
    ref = _ref(flags["cluster"], provider, common)
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
    spec = spec_from_flags(flags, meta)
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
    plan = plan_vm_workload(spec, chosen, provider=provider, detach=flags["detach"])
    (step,) = plan.steps
    assert isinstance(step, VmWorkloadRun)
    several = len({w.slice for w in chosen}) > 1
    targets = targets_for(chosen, several_slices=several, user=access.user)
    settings = SshSettings(
        known_hosts=access.known_hosts or paths.state_dir() / "known_hosts",
        identity=access.key_file,
    )

    def handlers() -> dict[str, Any]:
        import shutil

        from xcli.gateways.workload_driver import record_run
        from xcli.workload.vm.runs import RecordingRunner, refuse_running, run_dir

        engine: Literal["openssh", "asyncssh"] = "openssh" if shutil.which("ssh") else "asyncssh"
        folder = run_dir(ref.name, spec.name)
        refuse_running(folder)
        record_run(folder, step, targets, settings, engine)  # what `workload delete` stops
        sink = OutputSink(sys.stdout.buffer, sys.stderr.buffer, folder / "logs", append=True)
        runner = BroadcastRunner(targets, settings, sink, engine)
        meta = {"name": spec.name, "cluster": ref.name, "provider": provider,
                "accelerator": spec.accelerator.name, "workers": len(chosen),
                "max_restarts": spec.max_restarts}  # fmt: skip

        def launcher(detached: Any) -> dict[str, Any]:
            from xcli.gateways.workload_driver import launch

            pid = launch(folder, detached, targets, settings, engine, meta)
            return {"driver_pid": pid}

        recording = RecordingRunner(runner, folder, meta, len(chosen), spec.max_restarts)
        return {"vm_workload": make_handler(recording, launcher)}

    code = run_plan(common, plan, handlers)
    if flags["detach"] and not common.dry_run and common.output == "text":
        where = f"{spec.name} --cluster {ref.name} --provider {provider}"
        click.echo(
            f"running in the background; follow it: xcli workload status {where}; "
            f"xcli workload logs {where} --follow; xcli workload wait {where}",
            err=True,
        )
    return code
