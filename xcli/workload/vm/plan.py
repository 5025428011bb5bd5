"""`workload create` on VM-style clusters (queued-resource, local). Pure.

The same command runs on every worker of every slice through the broadcast engine, with the
environment contract a GKE pod gets (worker id, hostnames, multislice and JAX coordinators).
On Cloud TPU VMs it runs in a container with the options the TPU runtime needs; on the local
provider it runs in a container when Docker is installed, otherwise as a plain process.

Restarts follow the JobSet rule: one worker failing stops and restarts all of them, up to
--max-restarts times (plan/vm_run.py: the step, the rule and the loop around the engine).
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from typing import Literal

from xcli.image.google_hosts import is_google_registry
from xcli.plan.cluster import Worker
from xcli.plan.fanout import label
from xcli.plan.model import Plan
from xcli.plan.stacks import dump_command
from xcli.plan.steps import WorkerCommand
from xcli.plan.vm_run import VmWorkloadRun
from xcli.templating import render
from xcli.workload.spec import CONTRACT_ENV, WorkloadSpec

Runtime = Literal["docker", "process", "auto"]

MEGASCALE_PORT = 8080
# The program's profiler server (xcli.goodput.profiler_port, `xcli workload profile`): the
# port of the JAX docs and ML Diagnostics, the same on every host.
PROFILER_PORT = 9999
JAX_COORDINATOR_PORT = 8476  # JAX's default coordinator port on Cloud TPU


def _address(worker: Worker) -> str:
    return worker.internal_ip or worker.hostname or worker.host


def worker_env(workers: Sequence[Worker], worker: Worker) -> dict[str, str]:
    """The environment contract, computed from the cluster's workers (Cloud TPU VMs).

    Worker ids count within a slice; JAX process ids count across slices, slice by slice.
    Slice 0 worker 0 coordinates both the multislice runtime and jax.distributed.
    """
    ordered = sorted(workers, key=lambda w: (w.slice, w.index))
    per_slice = [w for w in ordered if w.slice == worker.slice]
    slices = sorted({w.slice for w in ordered})
    leader = _address(ordered[0])
    return {
        "TPU_WORKER_ID": str(worker.index),
        "TPU_WORKER_HOSTNAMES": ",".join(_address(w) for w in per_slice),
        "MEGASCALE_COORDINATOR_ADDRESS": leader,
        "MEGASCALE_NUM_SLICES": str(len(slices)),
        "MEGASCALE_SLICE_ID": str(slices.index(worker.slice)),
        "MEGASCALE_PORT": str(MEGASCALE_PORT),
        "JAX_COORDINATOR_ADDRESS": f"{leader}:{JAX_COORDINATOR_PORT}",
        "JAX_NUM_PROCESSES": str(len(ordered)),
        "JAX_PROCESS_ID": str(ordered.index(worker)),
        "XCLI_PROFILER_PORT": str(PROFILER_PORT),
    }


# The contract values that depend on how many workers run. An emulated worker (the local
# provider) holds the values of its whole cluster; a workload on fewer slices (--num-slices 1
# on a two-slice cluster) overrides them, or JAX would wait for processes that never start.
# SLURM_NTASKS: the local provider's copy of the count for JAX's Slurm detection
# (docs/local-provider.md).
SUBSET_ENV = ("MEGASCALE_NUM_SLICES", "JAX_NUM_PROCESSES", "SLURM_NTASKS")
# What an emulated worker's own environment holds and a container gets too (docs/local-provider.md)
LOCAL_PASSTHROUGH = (*CONTRACT_ENV["tpu"], "JAX_COORDINATOR_BIND_ADDRESS", "SLURM_JOB_ID",
                     "SLURM_STEP_NODELIST", "SLURM_PROCID", "SLURM_LOCALID",
                     "XCLI_PROFILER_PORT")  # fmt: skip


def subset_env(workers: Sequence[Worker]) -> dict[str, str]:
    """The counts of the workers a workload runs on (chosen slices start at slice 0, so slice
    ids, process ids and coordinators stay those of the cluster)."""
    count, slices = str(len(workers)), str(len({w.slice for w in workers}))
    return dict(zip(SUBSET_ENV, (slices, count, count), strict=True))


def worker_folder(name: str) -> str:
    """The workload's folder on a worker, relative to the login directory (~ on a TPU VM, the
    worker's own folder on the local provider): the process runtime keeps its pid there."""
    return f".xcli/workloads/{name}"


# The start time of process $p (/proc/PID/stat field 22, proc(5); the 20th field after the
# command's name): with the pid, the process's identity. Empty when it is gone.
_START = "sed 's/.*) //' \"/proc/$p/stat\" 2>/dev/null | cut -d' ' -f20"


def stop_script(spec: WorkloadSpec, on_tpu_vm: bool) -> str:
    """Stop one worker's run: TERM the process runtime's session, KILL it after the grace
    period; remove the container (docker runtime).

    The pid file holds "PID START"; a pid is signalled only while it is still that process
    (issue 26: a finished run's pid file, its pid since reused, sent TERM to a stranger).
    Without /proc, only whether it is alive."""
    folder = shlex.quote(worker_folder(spec.name))
    sudo = "sudo " if on_tpu_vm else ""
    ticks = max(1, spec.termination_grace_period) * 10
    ours = (
        'ours() { if [ -r /proc/self/stat ]; then [ -n "$s" ] && '
        f'[ "$({_START})" = "$s" ]; else kill -0 "$p" 2>/dev/null; fi; }}; '
    )
    return (
        f"p=; s=; read -r p s 2>/dev/null < {folder}/pid || true; {ours}"
        'if [ -n "$p" ] && ours; then '
        f'kill -TERM "-$p" 2>/dev/null || kill -TERM "$p" 2>/dev/null; i=0; '
        f"while ours && [ $i -lt {ticks} ]; do sleep 0.1; i=$((i+1)); done; "
        f'kill -KILL "-$p" 2>/dev/null; fi; rm -f {folder}/pid; '
        f"{sudo}docker rm -f {shlex.quote('xcli-' + spec.name)} >/dev/null 2>&1 || true"
    )


def registry_host(image: str) -> str | None:
    """The registry host of an image reference, or None for Docker Hub short names."""
    first, sep, _ = image.partition("/")
    if sep and ("." in first or ":" in first or first == "localhost"):
        return first
    return None


def worker_script(
    spec: WorkloadSpec,
    runtime: Runtime,
    env_values: Mapping[str, str],
    passthrough: Sequence[str] = (),
    on_tpu_vm: bool = True,
    volumes: Sequence[str] = (),
) -> str:
    """The shell script one worker runs (templates/workload/vm-run.sh.j2).

    On a Cloud TPU VM docker needs sudo and pulls from Google registries with the VM's own
    credentials; on the local provider neither applies.
    """
    host = registry_host(spec.image)
    google = on_tpu_vm and is_google_registry(host)
    values = dict(env_values)  # the contract only: the workload's own values come in a file
    folder = worker_folder(spec.name)
    return render(
        "workload/vm-run.sh.j2",
        container=shlex.quote(f"xcli-{spec.name}"),
        image=shlex.quote(spec.image),
        command=shlex.quote(spec.command),
        env_values=[shlex.quote(f"{k}={v}") for k, v in values.items()],
        env_passthrough=[shlex.quote(name) for name in passthrough],
        runtime=runtime,
        sudo="sudo " if on_tpu_vm else "",
        state=shlex.quote(worker_folder(spec.name)),
        registry=shlex.quote(host) if google and host else "",
        volumes=[shlex.quote(v) for v in volumes],
        env_file=shlex.quote(f"{folder}/env") if spec.env else "",
        upload=shlex.quote(env_upload_path(spec.name)),
    )


def env_upload_path(name: str) -> str:
    """Where xcli copies the workload's variables on each worker (relative to the login
    directory, where scp and SFTP put a relative path); the run script moves the file into the
    workload's folder. A file, never a command line: any local user reads those (issue 26)."""
    return f".xcli-{name}.env"


def env_file_text(env: Sequence[tuple[str, str]]) -> str:
    """NAME=VALUE lines, as the run script reads them and `docker run --env-file` does."""
    check_env_values(env)
    return "".join(f"{name}={value}\n" for name, value in env)


# docker run --env-file reads the file with Go's bufio.Scanner, whose longest line is
# bufio.MaxScanTokenSize (64 KiB): docker/cli opts/file.go (see docs/upstream.md)
MAX_ENV_LINE = 64 * 1024 - 1


def check_env_values(env: Sequence[tuple[str, str]]) -> None:
    """Each variable is one line of the variables file: no line break, at most MAX_ENV_LINE."""
    from xcli.errors import UserError

    for name, value in env:
        if "\n" in value or "\r" in value:
            raise UserError(
                f"--env {name}: its value holds a line break, which a VM-style workload "
                "cannot take (its variables travel as NAME=VALUE lines)",
                hint="pass it base64-encoded and decode it in the command",
            )
        if len(f"{name}={value}".encode(errors="surrogateescape")) > MAX_ENV_LINE:
            raise UserError(
                f"--env {name}: over 64 KiB, more than docker's --env-file reads in one line",
                hint="put large values in a file the command reads (xcli scp copies it)",
            )


def plan_vm_workload(
    spec: WorkloadSpec,
    workers: Sequence[Worker],
    *,
    cloud_vms: bool,
    runtime: Runtime | None = None,
    detach: bool = False,
    volumes: Sequence[str] = (),
) -> Plan:
    """One step that runs the workload on `workers` (every worker of the chosen slices).

    Cloud VMs (`cloud_vms`: Cloud TPU VMs) get the contract computed from the worker list and
    run a container (docker). Emulated workers (the local provider, no cloud) already hold the
    contract in their own environment (the local provider sets it), so it is passed through,
    except the counts, which describe `workers` (they may be fewer slices than the cluster's),
    and the runtime is chosen on the worker: docker if installed, else a plain process; without
    an image, always a plain process.
    """
    on_tpu_vm = cloud_vms
    check_env_values(spec.env)
    # local without an image: a plain process (nothing to run a container of)
    chosen: Runtime = runtime or ("docker" if on_tpu_vm else "auto" if spec.image else "process")
    stop = stop_script(spec, on_tpu_vm)
    dump = dump_command(spec.name, on_tpu_vm)  # the one `xcli workload stacks` runs
    commands, stops, dumps = [], [], []
    several = len({w.slice for w in workers}) > 1  # labels as `xcli ssh` prints them
    counts = subset_env(workers)  # emulated workers: the rest passes through
    passthrough = [name for name in LOCAL_PASSTHROUGH if name not in counts]
    for w in sorted(workers, key=lambda w: (w.slice, w.index)):
        if on_tpu_vm:
            env = worker_env(workers, w)
            script = worker_script(spec, chosen, env, on_tpu_vm=True, volumes=volumes)
        else:
            script = worker_script(
                spec, chosen, counts, passthrough, on_tpu_vm=False, volumes=volumes
            )
        name = label(w, several)
        commands.append(WorkerCommand(worker=name, host=w.host, argv=("/bin/sh", "-c", script)))
        stops.append(WorkerCommand(worker=name, host=w.host, argv=("/bin/sh", "-c", stop)))
        dumps.append(WorkerCommand(worker=name, host=w.host, argv=("/bin/sh", "-c", dump)))
    where = "in the background (a local driver process) " if detach else ""
    step = VmWorkloadRun(
        id="run",
        summary=f"run {spec.name} {where}on {len(commands)} worker(s), restarting all on a "
        f"failure up to {spec.max_restarts} time(s)",
        workers=tuple(commands),
        stop=tuple(stops),
        max_restarts=spec.max_restarts,
        detach=detach,
        env=spec.env,
        env_upload=env_upload_path(spec.name) if spec.env else "",
        hang_after=spec.hang_after,
        recover=spec.recover,
        dump=tuple(dumps) if spec.hang_after is not None else (),
    )
    return Plan(title=f"run workload {spec.name}", steps=(step,), max_parallel=1)
