"""The local provider's plans and environment contract: pure, deterministic, checked input."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from xcli.catalog import lookup
from xcli.cli.errors import run_guarded
from xcli.cli.main import cli
from xcli.errors import UserError
from xcli.execute.dry import DryRunExecutor
from xcli.plan.cluster import ClusterRef
from xcli.plan.model import Ref
from xcli.providers.local.layout import Layout, Ports, ports_from_base, worker_env
from xcli.providers.local.options import local_options
from xcli.providers.local.provider import LocalProvider
from xcli.spec import Capacity, ClusterSpec

REF = ClusterRef("demo", "", "", "local")
GOLDENS = Path(__file__).parent / "goldens"
DOC = Path(__file__).resolve().parents[2] / "docs" / "local-provider.md"


def spec(tpu: str = "v5litepod-16", slices: int = 2, **options: object) -> ClusterSpec:
    return ClusterSpec(
        name="demo",
        project="",
        zone="",
        provider="local",
        accelerator=lookup(tpu),
        capacity=Capacity("on-demand"),
        num_slices=slices,
        options=local_options(options),
    )


def render(plan: object, fmt: str) -> str:
    out = io.StringIO()
    DryRunExecutor(out, fmt).run(plan)  # type: ignore[arg-type]
    return out.getvalue()


@pytest.mark.parametrize(
    ("name", "plan"),
    [
        ("local-create.txt", lambda: render(LocalProvider().plan_create(spec()), "text")),
        ("local-create.json", lambda: render(LocalProvider().plan_create(spec()), "json")),
        (
            "local-delete.txt",
            lambda: render(LocalProvider().plan_delete(REF), "text"),
        ),
    ],
)
def test_golden_dry_runs(name: str, plan: object, update_goldens: bool) -> None:
    text = plan()  # type: ignore[operator]
    path = GOLDENS / name
    if update_goldens:
        path.parent.mkdir(exist_ok=True)
        path.write_text(text)
    assert text == path.read_text()
    assert text == plan()  # type: ignore[operator]
    assert "/home/" not in text and "/tmp" not in text  # no machine paths: portable


def test_doc_shows_the_real_dry_run() -> None:
    assert (GOLDENS / "local-create.txt").read_text() in DOC.read_text()


def test_ports_are_refs_until_the_supervisor_runs() -> None:
    plan = LocalProvider().plan_create(spec())
    steps = plan.by_id()
    assert [s.id for s in plan.steps] == ["keys", "start", "pin", "wait"]
    assert steps["pin"].args["ports"] == Ref("start", "ports")  # type: ignore[attr-defined]
    assert steps["pin"].args["host_keys"] == Ref("keys", "host_keys")  # type: ignore[attr-defined]
    assert steps["wait"].args["ports"] == Ref("start", "ports")  # type: ignore[attr-defined]
    assert "${start.ports}" in render(plan, "text")


def test_base_port_is_shown_literally() -> None:
    plan = LocalProvider().plan_create(spec(base_port=20000))
    start = plan.by_id()["start"]
    assert start.args["base_port"] == 20000  # type: ignore[attr-defined]
    assert "ports 20000-20016" in start.summary


def test_base_port_layout() -> None:
    ports = ports_from_base(20000, 8)
    assert ports.ssh == tuple(range(20000, 20008))
    assert ports.megascale == tuple(range(20008, 20016))
    assert ports.jax == 20016
    assert len(set(ports.all())) == 17


def test_environment_contract_two_slices() -> None:
    layout = Layout("demo", "v5litepod-16", 2, 4)
    ports = Ports(tuple(range(100, 108)), tuple(range(200, 208)), 300)
    envs = {(s, w): worker_env(layout, ports, s, w) for s, w in layout.workers()}
    assert len(envs) == 8
    for (s, w), env in envs.items():
        assert env["TPU_WORKER_ID"] == str(w)
        assert env["TPU_WORKER_HOSTNAMES"] == "127.0.0.1,127.0.0.1,127.0.0.1,127.0.0.1"
        assert env["MEGASCALE_NUM_SLICES"] == "2"
        assert env["MEGASCALE_SLICE_ID"] == str(s)
        assert env["MEGASCALE_COORDINATOR_ADDRESS"] == "127.0.0.1:200"  # slice 0 worker 0
        assert env["MEGASCALE_PORT"] == str(200 + 4 * s + w)
        assert env["JAX_COORDINATOR_ADDRESS"] == "127.0.0.1:300"
        assert env["JAX_COORDINATOR_BIND_ADDRESS"] == "127.0.0.1:300"
        assert env["JAX_NUM_PROCESSES"] == "8"
        assert env["JAX_PROCESS_ID"] == str(4 * s + w)
        # what JAX's Slurm detection reads: jax.distributed.initialize() with no arguments
        assert env["SLURM_NTASKS"] == "8"
        assert env["SLURM_PROCID"] == str(4 * s + w)
        assert (env["SLURM_STEP_NODELIST"], env["SLURM_LOCALID"]) == ("127.0.0.1", "0")
        assert env["SLURM_JOB_ID"].isdigit()
    assert sorted(int(e["JAX_PROCESS_ID"]) for e in envs.values()) == list(range(8))


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        (spec(tpu="h100-80gb-8", slices=1), "emulates TPU slices"),
        (spec(tpu="v6e-256", slices=8), "at most 256"),
        (spec(base_port=65530), "--base-port 65530 leaves no room"),
    ],
)
def test_bad_input_is_refused_before_anything(bad: ClusterSpec, message: str) -> None:
    with pytest.raises(UserError, match=message):
        LocalProvider().plan_create(bad)


def test_cli_needs_no_project_zone_or_capacity(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["cluster", "create", "--provider", "local", "--cluster", "demo"]
    assert run_guarded(cli, [*argv, "--tpu-type", "v5litepod-16", "--dry-run"], debug=False) == 0
    assert capsys.readouterr().out == render(LocalProvider().plan_create(spec(slices=1)), "text")


def test_cli_refuses_bad_flags_with_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["cluster", "create", "--provider", "local", "--cluster", "demo"]
    assert run_guarded(cli, [*argv, "--tpu-type", "v5litepod-16", "--spot"], debug=False) == 1
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "error: --spot does not apply to --provider local"
    assert err[1].startswith("hint: ")
    assert run_guarded(cli, [*argv, "--device-type", "h100-80gb-8"], debug=False) == 1
    assert "emulates TPU slices" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("/usr/bin:/bin", "/home/u/.venv/bin:/usr/bin:/bin"),  # README (a): venv not active
        ("/home/u/.venv/bin:/usr/bin", "/home/u/.venv/bin:/usr/bin"),  # active: unchanged
        ("/usr/bin:/home/u/.venv/bin", "/usr/bin:/home/u/.venv/bin"),  # the user's order kept
        ("", "/home/u/.venv/bin"),
    ],
)
def test_workers_find_the_python_that_runs_xcli(path: str, expected: str) -> None:
    from xcli.providers.local.supervisor import worker_path

    # a venv's python is a symlink: its own folder, not the target's, goes on PATH
    assert worker_path(path, "/home/u/.venv/bin/python") == expected
