"""`xcli workload create --dry-run`: golden plans (text and JSON), manifests, and bad input."""

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
    "--workload",
    "train-1",
    "--docker-image",
    "us-docker.pkg.dev/my-proj/repo/trainer:1",
    "--command",
    "python3 train.py --steps 100",
    "--dry-run",
]
METADATA = {
    "spot.yaml": {"accelerator": "v5p-128", "num_slices": "4", "capacity": "spot"},
    "reserved.yaml": {
        "accelerator": "tpu7x-8",
        "slices": "1",
        "capacity_type": "reservation",
        "reservation": "projects/shared-proj/reservations/ironwood",
    },
    # issue 38: the metadata tests/goldens/gke/v6e-256-nap-reservation.json writes
    "nap.yaml": {
        "accelerator": "v6e-256", "num_slices": "1", "capacity_type": "reservation",
        "reservation": "my-reservation", "autoprovisioning": "true",
        "autoprovisioning_min_chips": "0", "autoprovisioning_max_chips": "1024",
    },
    # what `cluster create --super-slicing --num-cubes 4` writes (tests/goldens/gke/
    # tpu7x-128-x4-super-slicing.json, k8s-metadata), the keys workloads read
    "super.yaml": {
        "accelerator": "tpu7x-128",
        "num_slices": "4",
        "capacity_type": "reservation",
        "reservation": "golden-reservation/reservationBlocks/block",
        "kueue_topology": "xcli-super-slice",
        "dynamic_slicing": "super",
        "cube": "4x4x4",
    },
}  # fmt: skip
SCENARIOS = {
    "v6e-256-x2": ["--tpu-type", "v6e-256", "--num-slices", "2", "--env", "A=1"],
    "v5litepod-16-x1": ["--tpu-type", "v5litepod-16", "--num-slices", "1", "--priority", "low"],
    "v5p-128-x4-spot": [
        "--cluster-metadata",
        "spot.yaml",
        "--max-restarts",
        "3",
        "--restart-on-exit-codes",
        "1,3",
    ],
    "tpu7x-8": ["--cluster-metadata", "reserved.yaml", "--replace", "--ttl-after-finished", "1h"],
    # issue 38: a 4x4x8 slice formed from two of the cluster's four sub-blocks
    "tpu7x-4x4x8-super-slicing": ["--cluster-metadata", "super.yaml", "--tpu-type", "tpu7x-4x4x8"],
    "h100-80gb-8-x2": ["--device-type", "h100-80gb-8", "--num-nodes", "2"],
    # the GPUDirect families (A3 Mega, A3 Ultra, A4, A4X as one NVLink domain of 18 VMs)
    "h100-mega-80gb-8-x4": ["--device-type", "h100-mega-80gb-8", "--num-nodes", "4"],
    "h200-141gb-8-x2": ["--device-type", "h200-141gb-8", "--num-nodes", "2"],
    "b200-8-x2": ["--device-type", "b200-8", "--num-nodes", "2"],
    "gb200-4-x18": ["--device-type", "gb200-4", "--num-nodes", "18"],
    # issue 36: XPK's CPU-only shape (docs/usage/cpu.md:39)
    "n2-standard-32-256": ["--device-type", "n2-standard-32-256", "--num-slices", "1"],
    # node auto-provisioning (issue 38): other slice sizes than the cluster's v6e-256, on its
    # reservation, and on Spot asked for at submit time
    "v6e-16-x4-nap": ["--cluster-metadata", "nap.yaml", "--tpu-type", "v6e-16", "--num-slices",
                      "4"],
    "v6e-64-x2-nap-spot": ["--cluster-metadata", "nap.yaml", "--tpu-type", "v6e-64",
                           "--num-slices", "2", "--spot"],
}  # fmt: skip


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Metadata files under relative names, so the printed plan does not depend on tmp_path."""
    for name, data in METADATA.items():
        (tmp_path / name).write_text(yaml.safe_dump(data))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = run_guarded(cli, args, debug=False)
    out, err = capsys.readouterr()
    return code, out, err


def _check_golden(path: Path, text: str, update: bool) -> None:
    if update:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"no golden {path.name}; run pytest --update-goldens"
    assert text == path.read_text(encoding="utf-8"), f"{path.name} changed"


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
@pytest.mark.parametrize("fmt", ["text", "json"])
def test_golden_dry_run(
    scenario: str,
    fmt: str,
    workdir: Path,
    capsys: pytest.CaptureFixture[str],
    update_goldens: bool,
) -> None:
    args = [*BASE, *SCENARIOS[scenario], "--output", fmt]
    code, out, err = _run(args, capsys)
    assert code == 0, err
    again = _run(args, capsys)[1]
    assert out == again  # byte-for-byte deterministic
    suffix = "json" if fmt == "json" else "txt"
    _check_golden(GOLDENS / f"{scenario}.{suffix}", out, update_goldens)
    if fmt == "json":
        for step in json.loads(out)["plan"]:
            # the ComputeDomain against the CRD of the DRA driver `cluster create` installs
            if step["kind"] == "k8s_apply":
                validate(step["manifest"])


def test_output_manifest_file_holds_the_applied_jobset(
    workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = [
        *BASE,
        *SCENARIOS["v6e-256-x2"],
        "--output",
        "json",
        "--output-manifest-file",
        "js.yaml",
    ]
    code, out, err = _run(args, capsys)
    assert code == 0, err
    (doc,) = list(yaml.safe_load_all((workdir / "js.yaml").read_text()))
    validate(doc)
    # The file holds the applied JobSet; the printed plan hides the user's --env values
    # (issue 37), so the file's A=1 is the one difference.
    printed = json.loads(out)["plan"][0]["manifest"]
    text = json.dumps(doc)
    assert text.count('{"name": "A", "value": "1"}') == 1
    assert (
        json.loads(
            text.replace('{"name": "A", "value": "1"}', '{"name": "A", "value": "<redacted>"}')
        )
        == printed
    )


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ([], "needs the accelerator"),
        (["--device-type", "h100-80gb-8", "--num-nodes", "0"], "0 is not in the range"),
        (["--tpu-type", "v6e-256", "--device-type", "h100-80gb-8"], "at most one of"),
        (["--tpu-type", "v6e-257", "--num-slices", "1"], "did you mean v6e-256"),
        (["--cluster-metadata", "spot.yaml", "--num-slices", "5"], "5 slices requested"),
        (["--cluster-metadata", "spot.yaml", "--tpu-type", "v6e-256"], "has v5p-128, not v6e-256"),
        (["--cluster-metadata", "missing.yaml"], "--cluster-metadata missing.yaml: no such file"),
        (["--tpu-type", "v6e-256", "--num-slices", "2", "--env", "X"], "is not NAME=VALUE"),
        (
            ["--tpu-type", "v6e-256", "--num-slices", "2", "--restart-on-exit-codes", "x"],
            "not an exit code",
        ),
        (
            ["--tpu-type", "v6e-256", "--num-slices", "2", "--ttl-after-finished", "5"],
            "has no unit",
        ),
    ],
)
def test_bad_input_exits_1_with_a_hint_line(
    extra: list[str], message: str, workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _run([*BASE, *extra], capsys)
    assert code == 1
    assert message in err and "Traceback" not in err
    assert out == ""


def test_too_long_name_explains_the_limit(
    workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = [*BASE, "--tpu-type", "v6e-256", "--num-slices", "2", "--workload", "a" * 50]
    code, _, err = _run(args, capsys)
    assert code == 1
    assert "is 50 characters; with 2 slice(s) of 64 VMs the limit is 46" in err
    assert "must fit 63 characters" in err


def test_cluster_metadata_file_is_for_dry_runs(
    workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A live run reads the cluster (tests/app/test_workload_live.py); a file would hide it."""
    args = [a for a in BASE if a != "--dry-run"]
    code, _, err = _run([*args, "--cluster-metadata", "spot.yaml"], capsys)
    assert code == 1 and "--cluster-metadata is for --dry-run" in err


def test_workload_is_listed_in_help(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(["--help"], capsys)
    assert code == 0 and "workload" in out


def test_deployment_folder_holds_the_jobset(
    workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = [*BASE, *SCENARIOS["h100-80gb-8-x2"], "--out", "deploy"]
    code, _, err = _run(args, capsys)
    assert code == 0, err
    doc = yaml.safe_load((workdir / "deploy" / "manifests" / "jobset.yaml").read_text())
    validate(doc)
    assert json.loads((workdir / "deploy" / "plan.json").read_text())["plan"][0]["manifest"] == doc
