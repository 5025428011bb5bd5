"""Rules of issue 13 checked in-process: flags that do not apply, states the docs list."""

from __future__ import annotations

import pytest

from xcli.cli.errors import run_guarded
from xcli.cli.main import cli

P = ["--project", "my-proj-1", "--zone", "us-east5-b"]


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = run_guarded(cli, argv, debug=False)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("state", ["stopped", "lost", "starting", "failed"])
def test_vm_workload_list_takes_every_documented_state(
    state: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["workload", "list", "--provider", "local", "--cluster", "c", "--state", state]
    code, _, err = _run(argv, capsys)
    assert code == 0, err
    assert err.strip() == f"no {state} workloads on cluster c"


@pytest.mark.parametrize(("provider", "state"), [("local", "queued"), ("gke", "lost")])
def test_a_state_of_the_other_kind_is_refused(
    provider: str, state: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["workload", "list", "--provider", provider, "--cluster", "c", "--state", state, *P]
    code, _, err = _run(argv, capsys)
    assert code == 1
    assert f"--state {state} does not occur on --provider {provider}" in err


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--tpu-type", "v5p-8", "--num-nodes", "2"], "--num-nodes counts GPU VMs"),
        (["--tpu-type", "h100-80gb-8"], "pass it with --device-type h100-80gb-8"),
        (["--device-type", "h100-80gb-8", "--num-slices", "2"], "--num-slices counts TPU"),
    ],
)
def test_flags_that_do_not_apply_are_refused(
    flags: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["cluster", "create", "--cluster", "c", "--spot", *flags, *P, "--dry-run"]
    code, out, err = _run(argv, capsys)
    assert (code, out) == (1, "")
    assert message in err


def test_num_slices_and_nodes_still_default_to_one(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["cluster", "create", "--cluster", "c", "--spot", "--device-type", "h100-80gb-8"]
    code, out, err = _run([*argv, *P, "--dry-run", "--output", "json"], capsys)
    assert code == 0, err
    assert '"nodeCount": 1' in out or '"initialNodeCount": 1' in out


def test_restart_on_exit_codes_is_refused_on_vm_clusters(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["workload", "create", "--provider", "local", "--cluster", "c", "--workload", "t"]
    argv += ["--docker-image", "i", "--command", "true", "--restart-on-exit-codes", "3"]
    code, _, err = _run(argv, capsys)
    assert code == 1
    assert "--restart-on-exit-codes applies only to --provider gke" in err


def test_the_dry_run_variable_must_be_a_boolean(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XCLI_DRY_RUN", "maybe")
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", "/nonexistent/credentials.json")
    code, out, err = _run(["cluster", "delete", "--cluster", "c", *P, "--yes"], capsys)
    assert (code, out) == (1, "")
    assert err.startswith("error: environment variable XCLI_DRY_RUN='maybe'")


def test_gcloud_variables_reach_the_plan_and_config_list(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLOUDSDK_CORE_PROJECT", "from-gcloud-env")
    monkeypatch.setenv("CLOUDSDK_COMPUTE_ZONE", "us-central1-a")
    argv = ["cluster", "create", "--cluster", "c", "--tpu-type", "v5p-8", "--spot", "--dry-run"]
    code, out, err = _run(argv, capsys)
    assert code == 0, err
    assert "/projects/from-gcloud-env/locations/us-central1/clusters" in out
    code, out, err = _run(["config", "list"], capsys)
    assert code == 0, err
    assert out.splitlines() == [
        f"{'project':10}{'from-gcloud-env':30}environment CLOUDSDK_CORE_PROJECT",
        f"{'zone':10}{'us-central1-a':30}environment CLOUDSDK_COMPUTE_ZONE",
    ]
