"""`xcli cluster create|wait|delete --provider queued-resource` from the command line: dry-runs
need no credentials, bad input exits 1 with a hint before anything is sent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import responses

from xcli.cli.errors import run_guarded
from xcli.cli.main import cli

COMMON = ["--project", "my-proj", "--zone", "us-east5-b"]
V4_ZONE = ["--zone", "us-central2-b"]  # v4 is offered there only (xcli/catalog/zones.json)


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = run_guarded(cli, argv, debug=False)
    out, err = capsys.readouterr()
    return code, out, err


def test_create_dry_run_reads_the_startup_script(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("USER", "alice")
    script = tmp_path / "setup.sh"
    script.write_text("#!/bin/bash\necho ready\n")
    argv = [
        "cluster",
        "create",
        "--provider",
        "queued-resource",
        "--cluster",
        "boot",
        "--tpu-type",
        "v4-8",
        "--on-demand",
        f"--metadata-from-file=startup-script={script}",
        "--dry-run",
        "-o",
        "json",
        *COMMON,
        *V4_ZONE,
    ]
    code, out, _ = _run(argv, capsys)
    assert code == 0
    doc = json.loads(out)
    steps = {step["id"]: step for step in doc["plan"]}
    body = steps["create"]["request"]["body"]
    assert body["tpu"]["nodeSpec"][0]["node"]["metadata"]["startup-script"] == (
        "#!/bin/bash\necho ready\n"
    )
    assert steps["ssh-access"]["user"] == "alice"
    assert not (tmp_path / "home" / ".ssh").exists()  # dry-run writes no key


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--tpu-type", "tpu7x-8", "--guaranteed"], "does not offer tpu7x"),
        (["--tpu-type", "v6e-8", "--flex-start"], "needs --max-run-duration"),
        (["--tpu-type", "v6e-8", "--flex-start", "--max-run-duration", "8d"], "out of range"),
        (
            [
                "--tpu-type",
                "v6e-8",
                "--spot",
                "--metadata-from-file",
                "startup-script=/nonexistent",
            ],
            "no such file",
        ),
    ],
)
def test_bad_input_exits_1_with_a_hint(
    extra: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [
        "cluster",
        "create",
        "--provider",
        "queued-resource",
        "--cluster",
        "q",
        *extra,
        "--dry-run",
        *COMMON,
    ]
    code, out, err = _run(argv, capsys)
    assert code == 1, err
    assert message in err and "hint:" in err
    assert out == ""


def test_wait_and_delete_dry_runs(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(
        ["cluster", "wait", "--cluster", "q", "--timeout", "2h", "--dry-run", *COMMON], capsys
    )
    assert code == 0
    assert "timeout_seconds: 7200" in out and "${wait-active.nodes}" in out
    code, out, _ = _run(
        [
            "cluster",
            "delete",
            "--provider",
            "queued-resource",
            "--cluster",
            "q",
            "--dry-run",
            *COMMON,
        ],
        capsys,
    )
    assert code == 0
    assert "queuedResources/q?force=true" in out


@responses.activate
def test_list_shows_age_and_quota_holders(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # real google.auth.default() with an authorized-user file; the token refresh is mocked too
    creds = tmp_path / "adc.json"
    creds.write_text(
        json.dumps(
            {
                "type": "authorized_user",
                "client_id": "c",
                "client_secret": "s",
                "refresh_token": "r",
            }
        )
    )
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(creds))
    responses.post(
        "https://oauth2.googleapis.com/token",
        json={"access_token": "t", "expires_in": 3600, "token_type": "Bearer"},
    )
    parent = "projects/my-proj/locations/us-east5-b"
    responses.get(
        f"https://tpu.googleapis.com/v2/{parent}/queuedResources",
        json={
            "queuedResources": [
                {
                    "name": f"{parent}/queuedResources/old",
                    "spot": {},
                    "createTime": "2020-01-01T00:00:00Z",
                    "tpu": {
                        "nodeSpec": [{"nodeId": "old", "node": {"acceleratorType": "v5litepod-16"}}]
                    },
                    "state": {"state": "FAILED"},
                }
            ]
        },
    )
    code, out, err = _run(["cluster", "list", "--provider", "queued-resource", *COMMON], capsys)
    assert code == 0, err
    header, row = out.splitlines()[:2]
    assert header.split()[-3:] == ["AGE", "FLEX", "REMAINING"]
    assert row.split()[:6] == ["old", "us-east5-b", "v5litepod-16", "1", "spot", "FAILED"]
    assert "holds quota" in row


def test_ssh_dry_run_says_it_needs_credentials_for_the_workers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # A credentials file that does not exist fails before google-auth would probe the GCE
    # metadata server, so this test reaches no host.
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(tmp_path / "missing.json"))
    argv = ["ssh", "--cluster", "q", "--worker=all", "--command", "hostname", "--dry-run"]
    code, out, err = _run([*argv, *COMMON], capsys)
    assert code == 1 and out == ""
    assert "xcli ssh needs Google credentials, even with --dry-run" in err
    assert "come from the Cloud TPU API" in err
    assert "or use --dry-run" not in err


def test_create_os_login_dry_run_needs_no_credentials(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(tmp_path / "missing.json"))
    argv = ["cluster", "create", "--provider", "queued-resource", "--cluster", "q"]
    argv += ["--tpu-type", "v4-8", "--spot", "--os-login", "--dry-run", "-o", "json"]
    code, out, _ = _run([*argv, *COMMON, *V4_ZONE], capsys)
    assert code == 0
    steps = {step["id"]: step for step in json.loads(out)["plan"]}
    assert steps["os-login-key"]["request"]["url"] == (
        "https://oslogin.googleapis.com/v1/users/${caller.email}:importSshPublicKey"
        "?projectId=my-proj"
    )
    assert steps["ssh-access"]["user"] == "${os-login-key.username}"
    code, _, err = _run([*argv, "--metadata", "enable-oslogin=FALSE", *COMMON, *V4_ZONE], capsys)
    assert code == 1 and "contradicts" in err


@responses.activate
def test_ssh_right_after_setup_retries_connections_longer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from xcli.providers.queued_resource import access as tpu_access

    token_uri = "https://oauth2.googleapis.com/token"
    adc = tmp_path / "adc.json"
    adc.write_text(
        json.dumps(
            {
                "type": "authorized_user",
                "client_id": "id",
                "client_secret": "secret",
                "refresh_token": "refresh",
                "token_uri": token_uri,
            }
        )
    )
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(adc))
    responses.post(token_uri, json={"access_token": "ya29.t", "expires_in": 3600})
    base = "https://tpu.googleapis.com/v2/projects/my-proj/locations/us-east5-b"
    parent = "projects/my-proj/locations/us-east5-b"
    qr = {
        "name": f"{parent}/queuedResources/q",
        "tpu": {"nodeSpec": [{"parent": parent, "nodeId": "q", "node": {}}]},
        "state": {"state": "ACTIVE"},
    }
    responses.get(f"{base}/queuedResources/q", json=qr)
    endpoint = {"ipAddress": "10.0.0.2", "accessConfig": {"externalIp": "34.0.0.2"}}
    responses.get(
        f"{base}/nodes/q", json={"name": f"{parent}/nodes/q", "networkEndpoints": [endpoint]}
    )
    key = tmp_path / "k"
    tpu_access.ensure_key(key, create=True)
    tpu_access.ensure_key(tpu_access.key_path("~/.ssh/xcli_ed25519"), create=True)
    argv = ["ssh", "--cluster", "q", "--command", "hostname", "--dry-run", "-o", "json", *COMMON]

    code, out, err = _run(argv, capsys)  # never set up from here: the connect timeout
    assert code == 0, err
    assert json.loads(out)["plan"][0]["retry_for_seconds"] == 10
    tpu_access.remember_access("my-proj", "us-east5-b", "q", "alice_example_com", str(key), True)
    code, out, _ = _run(argv, capsys)  # just set up: keys may still be reaching the VMs
    step = json.loads(out)["plan"][0]
    assert code == 0 and step["retry_for_seconds"] == 60.0
    assert '"-l", "alice_example_com", "--", "34.0.0.2"' in json.dumps(step)  # the OS Login user
    code, out, _ = _run([*argv, "--retry-for", "5s"], capsys)  # the flag wins
    assert json.loads(out)["plan"][0]["retry_for_seconds"] == 5


@pytest.mark.parametrize("verb", ["create", "wait"])
def test_missing_credentials_fail_once_before_the_key_is_written(
    verb: str,
    isolated_home: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A credentials file that does not exist: google-auth fails at once, without the network.
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(isolated_home / "missing.json"))
    extra = ["--tpu-type", "v5litepod-8", "--spot", "--yes"] if verb == "create" else []
    argv = ["cluster", verb, "--provider", "queued-resource", "--cluster", "q", *extra]
    code, _, err = _run([*argv, *COMMON], capsys)
    assert code == 1
    assert err.count("no Google credentials") == 1, err
    assert len(err.splitlines()) == 2 and err.splitlines()[1].startswith("hint: ")
    assert not (isolated_home / ".ssh").exists()


@pytest.mark.parametrize(
    ("key", "message"),
    [
        ("missing", "no such file"),
        ("not-a-key", "is not an SSH private key"),
        ("key.pub", "is a public key"),
        ("folder", "is a folder, not a regular file"),
    ],
)
def test_ssh_key_is_checked_before_anything_even_in_a_dry_run(
    key: str, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "not-a-key").write_text("hello\n")
    (tmp_path / "key.pub").write_text("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAA me\n")
    (tmp_path / "folder").mkdir()
    argv = ["cluster", "create", "--provider", "queued-resource", "--cluster", "q"]
    argv += ["--tpu-type", "v5litepod-8", "--spot", "--ssh-key", str(tmp_path / key)]
    code, out, err = _run([*argv, *COMMON, "--dry-run"], capsys)
    assert (code, out) == (1, ""), err
    assert message in err.splitlines()[0]
