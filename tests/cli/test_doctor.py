"""`xcli doctor` against `responses`: the real google-auth (an application-default file, a token
refresh, tokeninfo) and AuthorizedSession; every read's URL checked against its discovery
document, every faked answer against the response schema. Each check passing and failing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import responses

from tests.support.discovery import check_request, check_value
from xcli.cli.errors import run_guarded
from xcli.cli.main import cli

PROJECT, ZONE = "my-project", "us-east5-b"
SU = f"https://serviceusage.googleapis.com/v1/projects/{PROJECT}/services:batchGet"
REGION = f"https://compute.googleapis.com/compute/v1/projects/{PROJECT}/regions/us-east5"
H100 = (
    f"https://compute.googleapis.com/compute/v1/projects/{PROJECT}/zones/{ZONE}"
    "/acceleratorTypes/nvidia-h100-80gb"
)
V4 = f"https://tpu.googleapis.com/v2/projects/{PROJECT}/locations/{ZONE}/acceleratorTypes/v4-8"
TOKEN = "https://oauth2.googleapis.com/token"
TOKENINFO = "https://oauth2.googleapis.com/tokeninfo"


@pytest.fixture
def user_adc(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An authorized-user application-default file, as `gcloud auth application-default login`
    writes it."""
    adc = tmp_path / "adc.json"
    adc.write_text(
        json.dumps(
            {
                "type": "authorized_user",
                "client_id": "id.apps.googleusercontent.com",
                "client_secret": "secret",
                "refresh_token": "refresh",
            }
        )
    )
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(adc))
    return adc


def services(**states: str) -> dict[str, Any]:
    body = {
        "services": [
            {
                "name": f"projects/123/services/{api}",
                "config": {"name": api},
                "state": state,
                "parent": "projects/123",
            }
            for api, state in states.items()
        ]
    }
    check_value("serviceusage.v1", {"$ref": "BatchGetServicesResponse"}, body, "batchGet")
    return body


def region(**quotas: tuple[float, float]) -> dict[str, Any]:
    body = {
        "name": "us-east5",
        "quotas": [{"metric": m, "limit": lim, "usage": use} for m, (lim, use) in quotas.items()],
    }
    check_value("compute.v1", {"$ref": "Region"}, body, "regions.get")
    return body


def fake_auth(rsps: responses.RequestsMock, email: str = "alice@example.com") -> None:
    rsps.post(TOKEN, json={"access_token": "tok", "expires_in": 3600, "token_type": "Bearer"})
    rsps.get(TOKENINFO, json={"email": email, "scope": "openid"})


def doctor(capsys: pytest.CaptureFixture[str], *flags: str) -> tuple[int, dict[str, Any]]:
    argv = ["doctor", *flags, "--project", PROJECT, "--zone", ZONE, "--output", "json"]
    code = run_guarded(cli, argv, debug=False)
    out = capsys.readouterr().out
    return code, json.loads(out) if out.strip() else {}


def by_name(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["name"]: c for c in doc["checks"]}


def check_reads(rsps: responses.RequestsMock) -> None:
    """Every Google API read fits its method in the discovery document."""
    apis = {SU: "serviceusage.services.batchGet", REGION: "compute.regions.get"}
    apis[H100] = "compute.acceleratorTypes.get"
    apis[V4] = "tpu.projects.locations.acceleratorTypes.get"
    for call in rsps.calls:
        url = str(call.request.url)
        base = url.split("?", 1)[0]
        if base in apis:
            check_request(apis[base], str(call.request.method), url)
            assert call.request.headers["Authorization"] == "Bearer tok"


def test_all_checks_pass_for_an_h100_on_gke(
    user_adc: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with responses.RequestsMock() as rsps:
        fake_auth(rsps)
        rsps.get(
            SU, json=services(**{"container.googleapis.com": "ENABLED",
                                 "compute.googleapis.com": "ENABLED"})
        )  # fmt: skip
        rsps.get(REGION, json=region(PREEMPTIBLE_NVIDIA_H100_GPUS=(16, 8), CPUS=(100, 0)))
        rsps.get(H100, json={"name": "nvidia-h100-80gb", "zone": ZONE})
        code, doc = doctor(capsys, "--device-type", "h100-80gb-8")
        check_reads(rsps)
    checks = by_name(doc)
    assert code == 0 and doc["ok"] is True, doc
    assert checks["credentials"]["detail"] == (
        "user account from GOOGLE_APPLICATION_CREDENTIALS: alice@example.com"
    )
    assert checks["api container.googleapis.com"]["ok"] is True
    assert checks["api compute.googleapis.com"]["ok"] is True
    assert (
        checks["quota"]["ok"] is True
        and "spot PREEMPTIBLE_NVIDIA_H100_GPUS 8 free of 16" in (checks["quota"]["detail"])
    )
    assert checks["zone"] == {
        "name": "zone", "ok": True, "detail": f"{ZONE} offers nvidia-h100-80gb", "fix": "",
    }  # fmt: skip


def test_each_check_fails_with_its_fix(user_adc: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with responses.RequestsMock() as rsps:
        fake_auth(rsps)
        rsps.get(
            SU, json=services(**{"container.googleapis.com": "DISABLED",
                                 "compute.googleapis.com": "ENABLED"})
        )  # fmt: skip
        rsps.get(REGION, json=region(PREEMPTIBLE_NVIDIA_H100_GPUS=(8, 4)))
        rsps.get(H100, status=404, json={"error": {"code": 404, "message": "not found"}})
        code, doc = doctor(capsys, "--device-type", "h100-80gb-8")
        check_reads(rsps)
    checks = by_name(doc)
    assert code == 1 and doc["ok"] is False
    api = checks["api container.googleapis.com"]
    assert api["ok"] is False and api["detail"] == "disabled"
    assert api["fix"] == f"gcloud services enable container.googleapis.com --project {PROJECT}"
    assert checks["quota"]["ok"] is False and "needs 8" in checks["quota"]["detail"]
    assert "iam-admin/quotas" in checks["quota"]["fix"]
    assert checks["zone"]["ok"] is False
    assert checks["zone"]["detail"] == f"{ZONE} does not offer nvidia-h100-80gb"


def test_no_credentials_fails_the_first_check_and_skips_the_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(tmp_path / "missing.json"))
    with responses.RequestsMock() as rsps:  # any request would fail: none is registered
        code, doc = doctor(capsys, "--tpu-type", "v6e-256")
        assert not rsps.calls
    checks = by_name(doc)
    assert code == 1
    assert checks["credentials"]["ok"] is False
    assert "gcloud auth application-default login" in checks["credentials"]["fix"]
    assert checks["api container.googleapis.com"]["ok"] is None  # not read
    assert checks["zone"]["ok"] is True  # the catalogue: us-east5-b offers v6e
    assert checks["quota"]["ok"] is None  # no Compute quota metric is known for v6e


def test_refused_service_usage_is_a_failed_check_with_the_role_to_ask_for(
    user_adc: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with responses.RequestsMock() as rsps:
        fake_auth(rsps)
        denied = {"error": {"code": 403, "message": "Permission denied", "status": "DENIED"}}
        rsps.get(SU, status=403, json=denied)
        rsps.get(V4, status=404, json={"error": {"code": 404, "message": "not found"}})
        code, doc = doctor(capsys, "--provider", "queued-resource", "--tpu-type", "v4-8")
        check_reads(rsps)
    checks = by_name(doc)
    assert code == 1
    tpu = checks["api tpu.googleapis.com"]
    assert tpu["ok"] is False and tpu["detail"] == "Permission denied (HTTP 403)"
    assert "roles/serviceusage.serviceUsageViewer" in tpu["fix"]
    zone = checks["zone"]  # the Cloud TPU API's answer; the catalogue names where v4 is
    assert zone["ok"] is False and zone["detail"] == f"{ZONE} does not offer v4-8"
    assert zone["fix"].endswith("(the catalogue lists us-central2-b)")


def test_the_cloud_tpu_api_offering_the_type_passes_the_zone_check(
    user_adc: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with responses.RequestsMock() as rsps:
        fake_auth(rsps)
        rsps.get(
            SU, json=services(**{"tpu.googleapis.com": "ENABLED",
                                 "compute.googleapis.com": "ENABLED"})
        )  # fmt: skip
        body = {
            "name": f"projects/{PROJECT}/locations/{ZONE}/acceleratorTypes/v4-8",
            "type": "v4-8",
        }
        check_value("tpu.v2", {"$ref": "AcceleratorType"}, body, "acceleratorTypes.get")
        rsps.get(V4, json=body)
        code, doc = doctor(capsys, "--provider", "queued-resource", "--tpu-type", "v4-8")
        check_reads(rsps)
    checks = by_name(doc)
    assert code == 0, doc
    assert checks["zone"] == {
        "name": "zone",
        "ok": True,
        "detail": f"{ZONE} offers v4-8",
        "fix": "",
    }
    assert checks["quota"]["ok"] is None  # Cloud TPU quota: the console's page
    assert "iam-admin/quotas" in checks["quota"]["detail"]


def test_a_service_account_key_is_named_by_its_email(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()
    email = f"xcli@{PROJECT}.iam.gserviceaccount.com"
    sa = tmp_path / "sa.json"
    sa.write_text(
        json.dumps(
            {
                "type": "service_account",
                "project_id": PROJECT,
                "private_key_id": "k1",
                "private_key": pem,
                "client_email": email,
                "client_id": "1",
                "token_uri": TOKEN,
            }
        )
    )
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(sa))
    with responses.RequestsMock() as rsps:
        rsps.post(TOKEN, json={"access_token": "tok", "expires_in": 3600, "token_type": "Bearer"})
        rsps.get(
            SU, json=services(**{"container.googleapis.com": "ENABLED",
                                 "compute.googleapis.com": "ENABLED"})
        )  # fmt: skip
        code, doc = doctor(capsys)
        assert [c.request.url for c in rsps.calls if "tokeninfo" in str(c.request.url)] == []
    assert code == 0, doc
    assert by_name(doc)["credentials"]["detail"] == (
        f"service account key from GOOGLE_APPLICATION_CREDENTIALS: {email}"
    )


def test_dry_run_prints_the_reads_and_needs_no_credentials(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["doctor", "--device-type", "h100-80gb-8", "--project", PROJECT, "--zone", ZONE]
    with responses.RequestsMock():  # nothing is sent
        assert run_guarded(cli, [*argv, "--dry-run", "--output", "json"], debug=False) == 0
    plan = json.loads(capsys.readouterr().out)
    assert [s["kind"] for s in plan["plan"]] == ["credentials_read", *["check_read"] * 5]
    for step in plan["plan"][1:]:
        doc = "cloudresourcemanager.v3" if "/v3/" in step["request"]["url"] else None
        check_request(step["api"], step["request"]["method"], step["request"]["url"], doc=doc)
    assert [s["id"] for s in plan["plan"][-2:]] == ["project-number", "image-repository-iam"]
    assert plan["plan"][1]["request"]["url"].startswith(SU + "?names=projects/my-project/services/")


def test_text_output_is_one_line_per_check_with_its_fix(
    user_adc: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with responses.RequestsMock() as rsps:
        fake_auth(rsps)
        rsps.get(
            SU, json=services(**{"container.googleapis.com": "ENABLED",
                                 "compute.googleapis.com": "DISABLED"})
        )  # fmt: skip
        argv = ["doctor", "--project", PROJECT, "--zone", ZONE]
        assert run_guarded(cli, argv, debug=False) == 1
    assert capsys.readouterr().out.splitlines() == [
        "ok   credentials: user account from GOOGLE_APPLICATION_CREDENTIALS: alice@example.com",
        "ok   api container.googleapis.com: enabled",
        "FAIL api compute.googleapis.com: disabled",
        f"     fix: gcloud services enable compute.googleapis.com --project {PROJECT}",
        f"--   image pull: project {PROJECT}'s number could not be read",
    ]


CRM = f"https://cloudresourcemanager.googleapis.com/v3/projects/{PROJECT}"
AR_IAM = (
    "https://artifactregistry.googleapis.com/v1/projects/my-project/locations/"
    f"{ZONE.rsplit('-', 1)[0]}/repositories/xcli:getIamPolicy"
)
NODES = "serviceAccount:4242-compute@developer.gserviceaccount.com"


@pytest.mark.parametrize(
    ("policy", "ok"),
    [
        ({"bindings": [{"role": "roles/artifactregistry.reader", "members": [NODES]}]}, True),
        (
            {"bindings": [{"role": "roles/artifactregistry.reader", "members": ["user:a@b.c"]}]},
            False,
        ),
        (None, None),  # the repository does not exist yet
    ],
)
def test_image_pull_checks_the_nodes_account_on_the_default_repository(
    user_adc: Path,
    capsys: pytest.CaptureFixture[str],
    policy: dict[str, Any] | None,
    ok: bool | None,
) -> None:
    """Issue 32 item 4: the nodes' default Compute Engine account needs a role that pulls on the
    repository built images go to; the fix is the one gcloud command."""
    with responses.RequestsMock(assert_all_requests_are_fired=False) as rsps:
        fake_auth(rsps)
        rsps.get(SU, json=services(**{"container.googleapis.com": "ENABLED",
                                      "compute.googleapis.com": "ENABLED"}))  # fmt: skip
        rsps.get(CRM, json={"name": "projects/4242", "projectId": PROJECT})
        if policy is None:
            rsps.get(AR_IAM, status=404, json={"error": {"message": "not found"}})
        else:
            rsps.get(AR_IAM, json={"etag": "x", **policy})
        _, doc = doctor(capsys)
        for call in rsps.calls:
            url = str(call.request.url)
            if url.startswith(CRM):
                check_request(
                    "cloudresourcemanager.projects.get", "GET", url, doc="cloudresourcemanager.v3"
                )
            elif ":getIamPolicy" in url:
                api = "artifactregistry.projects.locations.repositories.getIamPolicy"
                check_request(api, "GET", url, doc="artifactregistry.v1")
    pull = by_name(doc)["image pull"]
    assert pull["ok"] is ok, pull
    if ok is False:
        assert pull["fix"] == (
            "gcloud artifacts repositories add-iam-policy-binding xcli --location "
            f"{ZONE.rsplit('-', 1)[0]} --project {PROJECT} --member {NODES} "
            "--role roles/artifactregistry.reader"
        )
