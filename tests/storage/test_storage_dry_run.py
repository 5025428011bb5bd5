"""`xcli storage attach | create | detach | delete --dry-run`: golden plans (text and JSON),
every Google request checked against its discovery document (Lustre: against the fields the
REST API documents, since no discovery document exists), every Kubernetes object against
lightkube-models."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.conftest import REPO
from tests.support.core import validate_core
from tests.support.discovery import check_request, check_value
from xcli.cli.errors import run_guarded
from xcli.cli.main import cli

GOLDENS = REPO / "tests" / "goldens" / "storage"
WHERE = ("--cluster", "demo", "--project", "my-proj", "--zone", "us-east5-b", "--dry-run")
SCENARIOS: dict[str, tuple[str, ...]] = {
    "attach-gcsfuse": ("attach", "data", "--type", "gcsfuse", "--bucket", "my-data"),
    "attach-gcsfuse-readonly": (
        "attach",
        "data",
        "--type",
        "gcsfuse",
        "--bucket",
        "my-data",
        "--readonly",
        "--auto-mount",
        "--mount-point",
        "/data",
        "--namespace",
        "team-a",
    ),
    "attach-filestore": ("attach", "fs", "--type", "filestore", "--instance", "my-fs"),
    "attach-lustre": (
        "attach",
        "scratch",
        "--type",
        "lustre",
        "--instance",
        "my-lustre",
        "--location",
        "us-east5-a",
    ),
    "attach-parallelstore": ("attach", "ps", "--type", "parallelstore", "--instance", "my-ps"),
    "attach-hyperdisk-ml": (
        "attach",
        "weights",
        "--type",
        "hyperdisk-ml",
        "--disk",
        "weights-disk",
        "--readonly",
    ),
    "create-gcsfuse": ("create", "ckpt", "--type", "gcsfuse", "--bucket", "my-ckpt-bucket"),
    "create-filestore": ("create", "fs", "--type", "filestore", "--size", "1TB"),
    "create-lustre": ("create", "scratch", "--type", "lustre", "--size", "18000GB"),
    "detach-gcsfuse": ("detach", "data", "--type", "gcsfuse", "--bucket", "my-data"),
    "delete-filestore": ("delete", "fs", "--type", "filestore", "--instance", "fs"),
}
# lustre.v1 Instance fields (google-cloud-lustre 0.4.3, google/cloud/lustre_v1/types/instance.py)
LUSTRE_INSTANCE = {
    "name",
    "filesystem",
    "capacityGib",
    "network",
    "state",
    "mountPoint",
    "createTime",
    "updateTime",
    "description",
    "labels",
    "perUnitStorageThroughput",
    "gkeSupportEnabled",
    "kmsKey",
    "placementPolicy",
    "accessRulesOptions",
    "maintenancePolicy",
    "dynamicTierOptions",
}


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = run_guarded(cli, ["storage", *args], debug=False)
    out, err = capsys.readouterr()
    return code, out, err


def check_golden(path: Path, text: str, update: bool) -> None:
    if update:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"no golden {path.name}; run pytest --update-goldens"
    assert text == path.read_text(encoding="utf-8"), f"{path.name} changed"


def check_google(step: dict[str, Any]) -> None:
    request = step["request"]
    url, body = request["url"], request.get("body")
    if step["api"].startswith("lustre."):
        assert urlsplit(url).netloc == "lustre.googleapis.com"
        assert urlsplit(url).path.startswith("/v1/projects/my-proj/locations/")
        if body is not None:
            assert set(body) <= LUSTRE_INSTANCE, set(body) - LUSTRE_INSTANCE
            assert {"filesystem", "capacityGib", "network"} <= set(body)
            assert len(body["filesystem"]) <= 8 and body["filesystem"].isalnum()
        return
    doc = "cloudresourcemanager.v3" if step["api"].startswith("cloudresourcemanager.") else None
    check_request(step["api"], request["method"], url, body, doc=doc)


NETWORK_KINDS = ("psa_check", "ensure_firewall", "recreate_nodes")


def check_network(step: dict[str, Any]) -> None:
    """The reads and writes of the network and node steps, against their discovery documents
    (a reference stands for a value of the right type: the ranges are a list live)."""
    reads = step.get("reads") or [step["read"]]
    for read in reads:
        request = read["request"]
        check_request(read["api"], request["method"], request["url"])
    write = step.get("create") or step.get("update")
    if write:
        request = write["request"]
        body = dict(request["body"])
        if "sourceRanges" in body:
            assert body["sourceRanges"] == "${psa.ranges}"
            body["sourceRanges"] = ["10.1.0.0/20"]
        check_request(write["api"], request["method"], request["url"], body)


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
@pytest.mark.parametrize("fmt", ["text", "json"])
def test_golden_dry_run(
    scenario: str, fmt: str, capsys: pytest.CaptureFixture[str], update_goldens: bool
) -> None:
    args = [*SCENARIOS[scenario], *WHERE, "--output", fmt]
    code, out, err = run(args, capsys)
    assert code == 0, err
    assert run(args, capsys)[1] == out  # byte for byte the same every time
    check_golden(GOLDENS / f"{scenario}.{'json' if fmt == 'json' else 'txt'}", out, update_goldens)
    if fmt != "json":
        return
    for step in json.loads(out)["plan"]:
        if step["kind"] in ("api_call", "api_read"):
            check_google(step)
        elif step["kind"] in NETWORK_KINDS:
            check_network(step)
        elif step["kind"] == "k8s_apply":
            validate_core(step["manifest"])
        elif step["kind"] == "bucket_iam":
            read, write = step["requests"]
            check_request(read["api"], read["method"], read["url"])
            policy = {"bindings": [{"role": step["role"], "members": ["x"]}], "etag": "e"}
            check_request(write["api"], write["method"], write["url"], policy)


def test_acceptance_attach_gcsfuse(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["attach", "data", "--type", "gcsfuse", "--bucket", "b", "--cluster", "c", "-o", "json"]
    code, out, err = run(
        [*args, "--project", "my-proj", "--zone", "us-east5-b", "--dry-run"], capsys
    )
    assert code == 0, err
    steps = {s["id"]: s for s in json.loads(out)["plan"]}
    addon = steps["addon"]["request"]["body"]["update"]["desiredAddonsConfig"]
    assert addon == {"gcsFuseCsiDriverConfig": {"enabled": True}}
    assert steps["bucket-iam"]["member"] == (
        "principal://iam.googleapis.com/projects/${project-number.number}/locations/global/"
        "workloadIdentityPools/my-proj.svc.id.goog/subject/ns/default/sa/default"
    )
    csi = steps["pv"]["manifest"]["spec"]["csi"]
    assert (csi["driver"], csi["volumeHandle"]) == ("gcsfuse.csi.storage.gke.io", "b")
    assert (
        steps["pvc"]["manifest"]["spec"]["volumeName"]
        == steps["pv"]["manifest"]["metadata"]["name"]
    )


def test_acceptance_create_filestore(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["create", "fs", "--type", "filestore", "--size", "1TB", "--cluster", "c"]
    code, out, err = run(
        [*args, "--project", "my-proj", "--zone", "us-east5-b", "--dry-run"], capsys
    )
    assert code == 0, err
    assert (
        "POST https://file.googleapis.com/v1/projects/my-proj/locations/us-east5-b/instances"
        "?instanceId=fs" in out
    )
    assert '"capacityGb": "1024"' in out


def test_readonly_gets_the_dataset_profile_and_viewer_role(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run([*SCENARIOS["attach-gcsfuse-readonly"], *WHERE, "-o", "json"], capsys)
    assert code == 0, err
    steps = {s["id"]: s for s in json.loads(out)["plan"]}
    spec = steps["pv"]["manifest"]["spec"]
    assert spec["accessModes"] == ["ReadOnlyMany"] and spec["csi"]["readOnly"] is True
    assert "write:enable-streaming-writes:true" not in spec["mountOptions"]
    assert steps["bucket-iam"]["role"] == "roles/storage.objectViewer"
    record = json.loads(steps["record"]["manifest"]["data"]["storage"])
    assert record["readonly"] and record["auto_mount"] and record["mount_point"] == "/data"
    assert steps["record"]["manifest"]["metadata"]["namespace"] == "team-a"


def test_addon_update_body_is_an_update_cluster_request(capsys: pytest.CaptureFixture[str]) -> None:
    for scenario in ("attach-filestore", "attach-lustre", "attach-parallelstore"):
        code, out, err = run([*SCENARIOS[scenario], *WHERE, "-o", "json"], capsys)
        assert code == 0, err
        addon = {s["id"]: s for s in json.loads(out)["plan"]}["addon"]
        check_value("container.v1", {"$ref": "UpdateClusterRequest"}, addon["request"]["body"], "x")
