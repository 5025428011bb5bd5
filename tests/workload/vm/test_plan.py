"""VM-style workloads: the environment contract, the run script, and the restart rule.

The restart tests at the end run the generated scripts as real processes (the local provider's
"no container runtime" path), with worker 2 failing once.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.process_runner import ProcessRunner
from tests.workload.cases import meta_for
from xcli.plan.cluster import Worker
from xcli.plan.model import Plan
from xcli.plan.render import plan_document
from xcli.plan.vm_run import Decision, VmWorkloadRun, WorkerExit, decide, run_with_restarts
from xcli.workload.spec import WorkloadSpec, workload_spec
from xcli.workload.vm.plan import (
    env_file_text,
    env_upload_path,
    plan_vm_workload,
    registry_host,
    worker_env,
    worker_script,
)

WORKERS = [
    Worker(s, i, f"34.1.{s}.{i}", internal_ip=f"10.0.{s}.{i}") for s in range(2) for i in range(4)
]


def _spec(command: str = "python3 train.py", image: str = "", **kw: object) -> WorkloadSpec:
    meta = meta_for("v5litepod-16-x1")
    return workload_spec(
        cluster="demo",
        name="train-1",
        image=image or "us-docker.pkg.dev/proj/repo/trainer:1",
        command=command,
        meta=meta,
        **kw,  # type: ignore[arg-type]
    )


def test_worker_env_contract() -> None:
    env = worker_env(WORKERS, WORKERS[6])  # slice 1, worker 2
    assert env == {
        "TPU_WORKER_ID": "2",
        "TPU_WORKER_HOSTNAMES": "10.0.1.0,10.0.1.1,10.0.1.2,10.0.1.3",
        "MEGASCALE_COORDINATOR_ADDRESS": "10.0.0.0",
        "MEGASCALE_NUM_SLICES": "2",
        "MEGASCALE_SLICE_ID": "1",
        "MEGASCALE_PORT": "8080",
        "JAX_COORDINATOR_ADDRESS": "10.0.0.0:8476",
        "JAX_NUM_PROCESSES": "8",
        "JAX_PROCESS_ID": "6",
    }
    ids = {worker_env(WORKERS, w)["JAX_PROCESS_ID"] for w in WORKERS}
    assert ids == {str(n) for n in range(8)}


@pytest.mark.parametrize(
    ("image", "host"),
    [
        ("ubuntu:22.04", None),
        ("library/ubuntu", None),
        ("us-docker.pkg.dev/p/r/i:1", "us-docker.pkg.dev"),
        ("gcr.io/p/i", "gcr.io"),
        ("localhost:5000/i", "localhost:5000"),
        ("registry.example.com/team/i@sha256:ab", "registry.example.com"),
    ],
)
def test_registry_host(image: str, host: str | None) -> None:
    assert registry_host(image) == host


def test_tpu_vm_script_runs_a_privileged_host_network_container() -> None:
    script = worker_script(_spec(), "docker", worker_env(WORKERS, WORKERS[0]), on_tpu_vm=True)
    assert "runtime=docker" in script
    assert "exec sudo docker run --rm --name xcli-train-1 --privileged --net=host" in script
    assert "-e TPU_WORKER_ID=0 \\" in script
    assert "docker login -u oauth2accesstoken --password-stdin us-docker.pkg.dev" in script
    assert "computeMetadata/v1/instance/service-accounts/default/token" in script


def test_the_vm_token_never_goes_to_another_registry() -> None:
    script = worker_script(_spec(image="registry.example.com/i:1"), "docker", {}, on_tpu_vm=True)
    assert "docker login" not in script and "metadata" not in script
    local = worker_script(_spec(), "auto", {}, on_tpu_vm=False)
    assert "docker login" not in local and "sudo" not in local


def test_user_input_is_quoted(tmp_path: Path) -> None:
    nasty = 'echo "$HOME"; echo \'a b\' && echo `x`; echo "$X"\nexit 3'
    script = worker_script(_spec(command=nasty, env=(("X", "a b'c $HOME"),)), "process", {})
    assert "a b'c" not in script  # the value comes in the uploaded file, never in the script
    (tmp_path / env_upload_path("train-1")).write_text(env_file_text((("X", "a b'c $HOME"),)))
    out = subprocess.run(
        ["sh", "-c", script.replace("env /bin/sh", "env -u HOME HOME=/h /bin/sh")],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode == 3, out.stderr
    assert out.stdout.splitlines() == ["/h", "a b", "", "a b'c $HOME"]
    assert not (tmp_path / env_upload_path("train-1")).exists()  # moved into the folder
    assert (tmp_path / ".xcli/workloads/train-1/env").is_file()


def test_a_value_with_a_line_break_is_refused() -> None:
    from xcli.errors import UserError

    with pytest.raises(UserError, match="line break"):
        plan_vm_workload(_spec(env=(("K", "a\nb"),)), WORKERS, cloud_vms=True)
    with pytest.raises(UserError, match="over 64 KiB"):  # docker's --env-file line limit
        plan_vm_workload(_spec(env=(("K", "x" * 65534),)), WORKERS, cloud_vms=True)
    plan_vm_workload(_spec(env=(("K", "x" * 65533),)), WORKERS, cloud_vms=True)  # K=... fits


def test_the_plan_names_the_variables_and_never_shows_their_values() -> None:
    plan = plan_vm_workload(_spec(env=(("TOKEN", "s3cret"),)), WORKERS, cloud_vms=True)
    assert "s3cret" not in json.dumps(plan_document(plan))
    doc = plan_document(plan)["plan"][0]
    assert doc["env_file"] == {"to": ".xcli-train-1.env", "names": ["TOKEN"]}
    assert "--env-file .xcli/workloads/train-1/env" in doc["workers"][0]["argv"][-1]


def test_plan_holds_one_restarting_run_step() -> None:
    plan = plan_vm_workload(_spec(max_restarts=2), WORKERS, cloud_vms=True)
    (step,) = plan.steps
    assert isinstance(step, VmWorkloadRun) and step.max_restarts == 2
    assert [w.worker for w in step.workers] == [w.label for w in WORKERS]
    assert step.workers[5].host == "34.1.1.1"
    doc = plan_document(plan)["plan"][0]
    assert doc["kind"] == "vm_workload" and doc["max_restarts"] == 2
    stop = doc["stop"][0]["argv"][-1]
    assert "sudo docker rm -f xcli-train-1 " in stop  # the container runtime
    assert 'kill -TERM "-$p"' in stop and ".xcli/workloads/train-1/pid" in stop  # process
    assert "JAX_PROCESS_ID=5" in doc["workers"][5]["argv"][-1]


def test_local_plan_passes_the_workers_own_environment_through() -> None:
    plan = plan_vm_workload(_spec(), WORKERS[:2], cloud_vms=False)
    script = plan.steps[0].workers[1].argv[-1]  # type: ignore[attr-defined]
    assert "command -v docker" in script  # docker if installed, else a plain process
    assert "-e TPU_WORKER_ID \\" in script and "TPU_WORKER_ID=" not in script


def test_local_workload_on_fewer_slices_counts_only_its_workers(tmp_path: Path) -> None:
    """--num-slices 1 on a two-slice local cluster: the workers hold the cluster's counts (8
    processes, 2 slices); the workload's processes must see their own (4, 1), or JAX waits for
    four processes that never start. Run as real processes with the cluster's environment."""
    from dataclasses import replace

    chosen = [w for w in WORKERS if w.slice == 0]
    docker = plan_vm_workload(_spec(), chosen, cloud_vms=False).steps[0].workers[0].argv[-1]  # type: ignore[attr-defined]
    # into a container too: the workload's count, never the worker's own (-e NAME)
    assert "-e JAX_NUM_PROCESSES=4 \\" in docker and "-e JAX_NUM_PROCESSES \\" not in docker
    assert "-e MEGASCALE_NUM_SLICES=1 \\" in docker and "-e TPU_WORKER_ID \\" in docker
    from xcli.providers import DEFAULT

    plain = DEFAULT.capabilities("local").plain_process  # runs without an image
    meta = replace(meta_for("v5litepod-16-x1"), provider="local", plain_process=plain)
    command = "echo $TPU_WORKER_ID $MEGASCALE_NUM_SLICES $JAX_NUM_PROCESSES $SLURM_NTASKS " \
        "$JAX_PROCESS_ID >> log"  # fmt: skip
    spec = workload_spec(cluster="demo", name="t1", image="", command=command, meta=meta)
    step = plan_vm_workload(spec, chosen, cloud_vms=False).steps[0]  # a plain process
    assert isinstance(step, VmWorkloadRun)
    cluster_env = {
        f"w{w.index}": {"PATH": os.environ["PATH"], "TPU_WORKER_ID": str(w.index),
                        "MEGASCALE_NUM_SLICES": "2", "JAX_NUM_PROCESSES": "8",
                        "SLURM_NTASKS": "8", "JAX_PROCESS_ID": str(w.index)}
        for w in chosen
    }  # fmt: skip
    exits = list(ProcessRunner(cluster_env, cwd=tmp_path).run(step.workers))
    assert [e.code for e in exits] == [0, 0, 0, 0]
    lines = sorted((tmp_path / "log").read_text().splitlines())
    assert lines == [f"{i} 1 4 4 {i}" for i in range(4)]


def test_local_without_an_image_runs_a_plain_process() -> None:
    from dataclasses import replace

    from xcli.errors import UserError
    from xcli.providers import DEFAULT

    plain = DEFAULT.capabilities("local").plain_process  # the local provider's capability
    meta = replace(meta_for("v5litepod-16-x1"), provider="local", plain_process=plain)
    spec = workload_spec(cluster="demo", name="t1", image="", command="true", meta=meta)
    script = plan_vm_workload(spec, WORKERS[:2], cloud_vms=False).steps[0].workers[0].argv[-1]  # type: ignore[attr-defined]
    assert "runtime=process" in script and "command -v docker" not in script
    with pytest.raises(UserError, match="not an image reference"):  # elsewhere an image is needed
        workload_spec(
            cluster="demo", name="t1", image="", command="true", meta=meta_for("v5litepod-16-x1")
        )
    qr = DEFAULT.capabilities("queued-resource").plain_process
    with pytest.raises(UserError, match="not an image reference"):  # Cloud TPU VMs need one
        workload_spec(
            cluster="demo",
            name="t1",
            image="",
            command="true",
            meta=replace(meta_for("v5litepod-16-x1"), plain_process=qr),
        )


# ---- the restart rule ----------------------------------------------------------------------


def _exit(worker: str, code: int | None) -> WorkerExit:
    return WorkerExit(worker, code)


@pytest.mark.parametrize(
    ("finished", "restarts_done", "max_restarts", "action", "who"),
    [
        ([], 0, 0, "wait", None),
        ([("w0", 0)], 0, 1, "wait", None),
        ([("w0", 0), ("w1", 0), ("w2", 0)], 0, 0, "succeed", None),
        ([("w0", 0), ("w2", 1)], 0, 1, "restart", "w2"),
        ([("w0", 0), ("w2", 1)], 1, 1, "fail", "w2"),
        ([("w2", 1)], 0, 0, "fail", "w2"),
        ([("w1", 137), ("w2", 1)], 0, 0, "fail", "w1"),  # the first to fail is named
        ([("w1", None)], 0, 3, "restart", "w1"),  # unreachable counts as a failure
    ],
)
def test_decide(
    finished: list[tuple[str, int | None]],
    restarts_done: int,
    max_restarts: int,
    action: str,
    who: str | None,
) -> None:
    d = decide([_exit(*f) for f in finished], 3, restarts_done, max_restarts)
    assert d.action == action
    assert (d.first_failure.worker if d.first_failure else None) == who


def test_describe_names_the_worker_and_code() -> None:
    assert (
        Decision("fail", _exit("s0/w2", 1)).describe() == "fail: worker s0/w2 failed (exit code 1)"
    )
    lost = Decision("restart", WorkerExit("s1/w0", None, "unreachable"))
    assert lost.describe() == "restart: worker s1/w0 failed (unreachable)"


def test_run_with_restarts_stops_everyone_and_tries_again() -> None:
    attempts = [[_exit("w0", 0), _exit("w2", 1)], [_exit("w2", 0), _exit("w1", 0), _exit("w0", 0)]]
    stops: list[int] = []
    outcome = run_with_restarts(lambda n: iter(attempts[n]), lambda: stops.append(1), 3, 1)
    assert outcome.ok and outcome.restarts == 1 and len(stops) == 1
    assert [d.action for d in outcome.attempts] == ["restart", "succeed"]


def test_engine_ending_early_is_a_failure() -> None:
    outcome = run_with_restarts(lambda n: iter([_exit("w0", 0)]), lambda: None, 3, 0)
    assert not outcome.ok and outcome.failure is not None
    assert "2 worker(s) never reported" in outcome.failure.reason


# ---- real processes: worker 2 exits 1 once --------------------------------------------------


def local_run(tmp_path: Path, max_restarts: int) -> tuple[Plan, ProcessRunner, Path]:
    """A local-provider plan whose worker 2 exits 1 the first time, and a process runner with a
    PATH without docker (so the "auto" runtime falls back to a plain process)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("env", "touch", "mkdir", "setsid", "cat", "rm", "sleep"):
        found = shutil.which(tool)
        assert found
        os.symlink(found, bin_dir / tool)
    marker, log = tmp_path / "failed-once", tmp_path / "log"
    command = (
        f'if [ "$TPU_WORKER_ID" = 2 ] && [ ! -e {marker} ]; then touch {marker}; exit 1; fi; '
        f'echo "ran $TPU_WORKER_ID" >> {log}'
    )
    workers = [Worker(0, i, "127.0.0.1") for i in range(4)]
    plan = plan_vm_workload(
        _spec(command=command, max_restarts=max_restarts), workers, cloud_vms=False
    )
    env = {
        # one slice: workers are labelled w0..w3, as `xcli ssh` prints them
        f"w{w.index}": {
            "PATH": str(bin_dir),
            "TPU_WORKER_ID": str(w.index),
            "MEGASCALE_NUM_SLICES": "1",
        }
        for w in workers
    }
    return plan, ProcessRunner(env, cwd=tmp_path), log


def _drive(plan: Plan, runner: ProcessRunner) -> object:
    step = plan.steps[0]
    assert isinstance(step, VmWorkloadRun)
    return run_with_restarts(
        lambda n: runner.run(step.workers),
        lambda: runner.stop(step.stop),
        len(step.workers),
        step.max_restarts,
    )


def test_one_failure_restarts_all_and_then_succeeds(tmp_path: Path) -> None:
    plan, runner, log = local_run(tmp_path, max_restarts=1)
    outcome = _drive(plan, runner)
    assert outcome.ok and outcome.restarts == 1  # type: ignore[attr-defined]
    lines = log.read_text().splitlines()
    assert sorted(lines[-4:]) == ["ran 0", "ran 1", "ran 2", "ran 3"]  # all four ran again
    assert runner.stopped == 1


def test_without_restarts_the_failure_names_worker_2(tmp_path: Path) -> None:
    plan, runner, _ = local_run(tmp_path, max_restarts=0)
    outcome = _drive(plan, runner)
    assert not outcome.ok  # type: ignore[attr-defined]
    failure = outcome.failure  # type: ignore[attr-defined]
    assert (failure.worker, failure.code) == ("w2", 1)


@pytest.mark.parametrize("provider", ["queued-resource", "local"])
def test_golden_vm_plan(provider: str, update_goldens: bool) -> None:
    from tests.conftest import REPO
    from xcli.plan.render import plan_json, plan_text

    plan = plan_vm_workload(
        _spec(env=(("WANDB_MODE", "offline"),), max_restarts=2),
        WORKERS,
        cloud_vms=provider == "queued-resource",
    )
    for suffix, text in (("json", plan_json(plan)), ("txt", plan_text(plan))):
        path = REPO / "tests" / "goldens" / "workload" / f"vm-{provider}.{suffix}"
        if update_goldens:
            path.write_text(text, encoding="utf-8")
        assert text == path.read_text(encoding="utf-8"), f"{path.name} changed"
