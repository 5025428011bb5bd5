"""GKE `--env` values: never printed by the dry-run, and with `--env-secret` kept in a Secret
xcli creates (owned by the JobSet) that the pods read by reference, so the JobSet holds only
the names (issue 37, Security)."""

from __future__ import annotations

import json

import pytest

from tests.support.workload_cluster import JOBSETS, WHERE, Cluster, cluster, set_up

__all__ = ["cluster"]  # the fixture

VALUE = "wandb-0123456789abcdef"
ARGS = [
    "workload", "create", *WHERE, "--workload", "train-1", "--tpu-type=v6e-256",
    "--num-slices", "1", "--docker-image", "us-docker.pkg.dev/p/r/img:1",
    "--command", "python3 train.py", "--env", f"WANDB_API_KEY={VALUE}", "--env", "STEPS=10",
]  # fmt: skip


def _main_env(jobset: dict[str, object]) -> list[dict[str, object]]:
    job = jobset["spec"]["replicatedJobs"][0]  # type: ignore[index]
    return job["template"]["spec"]["template"]["spec"]["containers"][0]["env"]  # type: ignore[no-any-return]


@pytest.mark.parametrize("output", ["text", "json"])
@pytest.mark.parametrize("secret", [[], ["--env-secret"]])
def test_the_dry_run_never_prints_an_env_value(
    cluster: Cluster, output: str, secret: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = cluster.run([*ARGS, *secret, "--dry-run", "--output", output], capsys)
    assert code == 0, err
    assert VALUE not in out and VALUE not in err
    assert "WANDB_API_KEY" in out and "<redacted>" in out


def test_live_without_the_option_the_jobset_gets_the_values(
    cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    set_up(cluster.fake)
    code, _out, err = cluster.run(ARGS, capsys)
    assert code == 0, err
    (patch,) = cluster.fake.patches()
    assert {"name": "WANDB_API_KEY", "value": VALUE} in _main_env(json.loads(patch.content))


def test_env_secret_puts_the_values_in_a_secret_the_jobset_owns(
    cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    set_up(cluster.fake)
    code, _out, err = cluster.run([*ARGS, "--env-secret"], capsys)
    assert code == 0, err
    jobset_patch, secret_patch = cluster.fake.patches()
    assert jobset_patch.url.path == f"{JOBSETS}/train-1"
    assert secret_patch.url.path == "/api/v1/namespaces/default/secrets/train-1-env"
    jobset = json.loads(jobset_patch.content)
    assert VALUE not in jobset_patch.content.decode()
    env = _main_env(jobset)
    ref = {"secretKeyRef": {"name": "train-1-env", "key": "WANDB_API_KEY"}}
    assert {"name": "WANDB_API_KEY", "valueFrom": ref} in env
    assert {
        "name": "STEPS",
        "valueFrom": {**ref, "secretKeyRef": {**ref["secretKeyRef"], "key": "STEPS"}},
    } in env
    secret = json.loads(secret_patch.content)
    assert secret["type"] == "Opaque"
    assert secret["stringData"] == {"WANDB_API_KEY": VALUE, "STEPS": "10"}
    stored = cluster.fake.objects[f"{JOBSETS}/train-1"]
    (owner,) = secret["metadata"]["ownerReferences"]
    assert (owner["kind"], owner["name"], owner["uid"]) == (
        "JobSet", "train-1", stored["metadata"]["uid"],
    )  # fmt: skip


def test_env_secret_on_a_vm_cluster_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    from xcli.cli.errors import run_guarded
    from xcli.cli.main import cli

    args = [
        "workload", "create", "--provider", "local", "--cluster", "demo", "--workload", "w",
        "--command", "true", "--env", "K=v", "--env-secret",
    ]  # fmt: skip
    code = run_guarded(cli, args, debug=False)
    out, err = capsys.readouterr()
    assert code == 1 and out == ""
    assert err.splitlines()[0].startswith("error: --env-secret is for Kubernetes workloads")
    assert err.splitlines()[1] == "hint: drop --env-secret"
