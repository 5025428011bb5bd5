"""`xcli workload create --pathways --dry-run`: golden plans (batch, headless, elastic), the
JobSet checked against its CRD, and bad input refused in one line before any call."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.conftest import REPO
from tests.support.crd import validate
from xcli.cli.errors import run_guarded
from xcli.cli.main import cli

GOLDENS = REPO / "tests" / "goldens" / "workload"
BASE = [
    "workload",
    "create",
    "--project",
    "my-proj",
    "--zone",
    "us-east5-b",
    "--cluster",
    "demo",
    "--pathways",
    "--pathways-gcs-location",
    "gs://my-proj-pathways/scratch",
    "--dry-run",
]
# the metadata ConfigMap of the golden cluster gke/v5p-128-x2-pathways (its data, as a file),
# read from that golden so the workload sees what the cluster really records (kueue_topology:
# its TPU flavor uses Kueue's TAS, so the workers must ask for a topology)
_CLUSTER_GOLDEN = json.loads((REPO / "tests/goldens/gke/v5p-128-x2-pathways.json").read_text())
(PATHWAYS_CLUSTER,) = [
    s["manifest"]["data"] for s in _CLUSTER_GOLDEN["plan"] if s["id"] == "k8s-metadata"
]
NO_POOL = {k: v for k, v in PATHWAYS_CLUSTER.items() if k != "pathways_pool"}
IMAGE = ["--docker-image", "us-docker.pkg.dev/my-proj/repo/trainer:1"]
SCENARIOS = {
    "pathways-batch": [
        "--workload",
        "train-1",
        *IMAGE,
        "--command",
        "python3 train.py",
        "--cluster-metadata",
        "pw.yaml",
    ],
    "pathways-headless": ["--workload", "nb-1", "--headless", "--cluster-metadata", "pw.yaml"],
    "pathways-elastic": [
        "--workload",
        "elastic-1",
        *IMAGE,
        "--command",
        "python3 train.py",
        "--elastic-slices",
        "1",
        "--max-slice-restarts",
        "3",
        "--cluster-metadata",
        "pw.yaml",
    ],
}


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "pw.yaml").write_text(yaml.safe_dump(PATHWAYS_CLUSTER))
    (tmp_path / "nopool.yaml").write_text(yaml.safe_dump(NO_POOL))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XCLI_HOME", str(tmp_path / "home"))
    return tmp_path


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = run_guarded(cli, args, debug=False)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("case", sorted(SCENARIOS))
@pytest.mark.parametrize("fmt", ["text", "json"])
def test_golden_dry_run(
    case: str, fmt: str, workdir: Path, capsys: pytest.CaptureFixture[str], update_goldens: bool
) -> None:
    code, out, err = _run([*BASE, *SCENARIOS[case], "--output", fmt], capsys)
    assert code == 0, err
    path = GOLDENS / f"{case}.{'txt' if fmt == 'text' else 'json'}"
    if update_goldens:
        path.write_text(out, encoding="utf-8")
    assert out == path.read_text(encoding="utf-8"), f"{path.name} changed"
    if fmt == "json":
        (step,) = json.loads(out)["plan"]
        validate(step["manifest"])


def test_the_plan_names_what_it_pulls_and_headless_has_no_user_container(
    workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _run([*BASE, *SCENARIOS["pathways-headless"], "-o", "json"], capsys)
    assert code == 0, err
    doc = json.loads(out)
    assert any(n.endswith("/pathways/proxy_server:jax-0.9.0") for n in doc["notes"])
    head = doc["plan"][0]["manifest"]["spec"]["replicatedJobs"][0]
    containers = head["template"]["spec"]["template"]["spec"]["containers"]
    assert [c["name"] for c in containers] == ["pathways-proxy", "pathways-rm"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--workload", "nb-1", "--headless", "--command", "x", "--cluster-metadata", "pw.yaml"],
            "takes no --command",
        ),
        (
            [
                "--workload",
                "a-name-longer-than-22-c",
                "--headless",
                "--cluster-metadata",
                "pw.yaml",
            ],
            "at most 22",
        ),
        (
            ["--workload", "nb-1", "--headless", "--cluster-metadata", "nopool.yaml"],
            "has no Pathways head pool",
        ),
        (
            [
                "--workload",
                "nb-1",
                "--headless",
                "--device-type",
                "h100-80gb-8",
                "--num-nodes",
                "2",
            ],
            "not one Pathways serves",
        ),
        (["--workload", "nb-1", "--headless", "--provider", "local"], "runs on GKE clusters"),
    ],
)
def test_bad_input_one_line_before_any_call(
    args: list[str], message: str, workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = _run([*BASE, *args], capsys)
    assert code == 1, err
    first, hint = err.splitlines()[:2]
    assert first.startswith("error: ") and message in first, err
    assert hint.startswith("hint: ")


def test_pathways_flags_without_pathways_are_refused(
    workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = [a for a in BASE if a != "--pathways"]
    code, _, err = _run([*base, "--workload", "x", "--headless"], capsys)
    assert code == 1 and "applies only with --pathways" in err
    code, _, err = _run([*base, "--workload", "x", "--cluster-metadata", "pw.yaml"], capsys)
    assert code == 1 and "--pathways-gcs-location applies only with --pathways" in err


def test_command_is_still_required_without_headless(
    workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = _run([*BASE, "--workload", "x", "--cluster-metadata", "pw.yaml"], capsys)
    assert code == 2 and "Missing option '--command'" in err


def test_latest_only_when_asked_and_then_said(
    workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = [*BASE, *SCENARIOS["pathways-headless"], "--pathways-version", "latest", "-o", "json"]
    code, out, err = _run(args, capsys)
    assert code == 0, err
    notes = json.loads(out)["notes"]
    assert any("--pathways-version latest, as asked" in n for n in notes)
    assert any(n.endswith("/pathways/server:latest") for n in notes)


def test_no_scratch_location_takes_xpks_default_and_says_so(
    workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # issue 36 (the trial's F11): XPK's --pathways-gcs-location defaults to
    # gs://cloud-pathways-staging/tmp (src/xpk/parser/workload.py:301-309 at 367c838253be)
    i = BASE.index("--pathways-gcs-location")
    base = BASE[:i] + BASE[i + 2 :]
    code, out, err = _run([*base, *SCENARIOS["pathways-headless"], "-o", "json"], capsys)
    assert code == 0, err
    doc = json.loads(out)
    assert (
        "Pathways scratch location: gs://cloud-pathways-staging/tmp (XPK's default; "
        in " ".join(doc["notes"])
    )
    assert "--gcs_scratch_location=gs://cloud-pathways-staging/tmp" in out
    # a bucket name that is too short is said as such (it was "not a gs:// location")
    code, _out, err = _run([*base, *SCENARIOS["pathways-headless"], "--pathways-gcs-location",
                            "gs://b/pw"], capsys)  # fmt: skip
    assert code == 1 and "bucket name 'b' must be 3-63 characters long" in err
