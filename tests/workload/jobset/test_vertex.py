"""`workload create --vertex-tensorboard [--experiment-name N]` (XPK's --use-vertex-tensorboard):
the Tensorboard the cluster's metadata names, the Experiment, XPK's variables in the JobSet; the
Experiment's request against `responses` and aiplatform.v1's discovery document."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
import responses
import yaml

from tests.support.discovery import check_request
from xcli.cli.errors import run_guarded
from xcli.cli.main import cli
from xcli.errors import CloudError
from xcli.gateways.backoff import Timing
from xcli.gateways.google.rest import RestGateway
from xcli.gateways.google.vertex import VertexGateway
from xcli.plan.contract import NullReporter, StepContext
from xcli.plan.vertex import CREATE_EXPERIMENT, EnsureExperiment

BASE = ["workload", "create", "--project", "my-proj", "--zone", "us-east5-b", "--cluster", "demo",
        "--workload", "train-1", "--docker-image", "img:1", "--command", "python3 train.py",
        "--dry-run", "-o", "json", "--vertex-tensorboard"]  # fmt: skip
BOARD = "projects/my-proj/locations/us-west1/tensorboards/123"


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = run_guarded(cli, args, debug=False)
    out, err = capsys.readouterr()
    return code, out, err


def _env(plan: dict[str, object]) -> dict[str, str]:
    steps = plan["plan"]  # type: ignore[index]
    jobset = next(s for s in steps if s["id"] == "jobset")["manifest"]  # type: ignore[index]
    pod = jobset["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]
    return {e["name"]: e.get("value", "") for e in pod["containers"][0]["env"]}


def test_the_metadata_names_the_tensorboard_and_the_jobset_gets_xpks_variables(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    meta = {"accelerator": "v6e-8", "tensorboard_region": "us-west1", "tensorboard_name": "tb"}
    Path("meta.yaml").write_text(yaml.safe_dump(meta))
    code, out, err = run([*BASE, "--cluster-metadata", "meta.yaml", "--experiment-name", "e-1"],
                         capsys)  # fmt: skip
    assert code == 0, err
    plan = json.loads(out)
    steps = {s["id"]: s for s in plan["plan"]}
    assert (
        steps["tensorboard"]["region"] == "us-west1" and steps["tensorboard"]["tensorboard"] == "tb"
    )
    exp = steps["experiment"]
    assert exp["after"] == ["tensorboard"] and "experiment" in steps["jobset"]["after"]
    url = exp["request"]["url"]
    assert url.endswith("/${tensorboard.tensorboard}/experiments?tensorboardExperimentId=e-1")
    env = _env(plan)
    assert env["UPLOAD_DATA_TO_TENSORBOARD"] == "True" and env["EXPERIMENT_NAME"] == "e-1"
    assert (env["TENSORBOARD_REGION"], env["TENSORBOARD_NAME"]) == ("us-west1", "tb")
    assert env["TENSORBOARD_PROJECT"] == "my-proj"


def test_xpks_defaults_from_flags_and_refusals(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = run([*BASE, "--tpu-type", "v6e-8"], capsys)
    assert code == 0, err
    plan = json.loads(out)
    assert _env(plan)["EXPERIMENT_NAME"] == "demo-train-1"  # XPK's <cluster>-<workload>
    assert [n for n in plan["notes"] if "XPK's default, demo-tb-instance in us-central1" in n]
    Path("meta.yaml").write_text(yaml.safe_dump({"accelerator": "v6e-8"}))
    code, _, err = run([*BASE, "--cluster-metadata", "meta.yaml"], capsys)
    assert code == 1 and "has no Vertex AI Tensorboard in its metadata" in err
    base = [a for a in BASE if a != "--vertex-tensorboard"]
    code, _, err = run([*base, "--tpu-type", "v6e-8", "--experiment-name", "e"], capsys)
    assert code == 1 and "applies only with --vertex-tensorboard" in err
    code, _, err = run([*BASE, "--tpu-type", "v6e-8", "--experiment-name", "E_1"], capsys)
    assert code == 1 and "is not an experiment name" in err


def _gateway() -> VertexGateway:
    from google.auth.credentials import AnonymousCredentials
    from google.auth.transport.requests import AuthorizedSession

    session = AuthorizedSession(AnonymousCredentials())  # type: ignore[no-untyped-call]
    return VertexGateway(RestGateway(session, timing=Timing(sleep=lambda _s, _e: None)))


@responses.activate
def test_the_experiment_is_created_or_kept() -> None:
    step = EnsureExperiment(id="experiment", summary="exp", region="us-west1", tensorboard=BOARD,
                            experiment="e-1", workload="w")  # fmt: skip
    ctx = StepContext(step, NullReporter(), threading.Event(), {})
    url = str(step.create_url())
    responses.post(url, json={"name": f"{BOARD}/experiments/e-1"})
    got = _gateway().experiment(step, ctx)
    req = responses.calls[0].request
    check_request(CREATE_EXPERIMENT, "POST", req.url, json.loads(req.body))
    assert json.loads(req.body) == step.body()
    assert got["url"] == (
        "https://us-west1.tensorboard.googleusercontent.com/experiment/"
        "projects+my-proj+locations+us-west1+tensorboards+123+experiments+e-1"
    )
    responses.replace("POST", url, status=409, json={"error": {"code": 409, "message": "exists"}})
    assert _gateway().experiment(step, ctx)["experiment"] == f"{BOARD}/experiments/e-1"
    responses.replace("POST", url, status=403, json={"error": {"code": 403, "message": "no"}})
    with pytest.raises(CloudError, match="no"):
        _gateway().experiment(step, ctx)
