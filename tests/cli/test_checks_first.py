"""Every input check comes before the first request (issue 37, "checks that come after the
network"), and `workload connect --dry-run` checks what the live run checks."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from xcli import cluster_index
from xcli.cli.errors import run_guarded
from xcli.cli.main import cli

P = ["--project", "my-proj-1", "--zone", "us-east5-b"]


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, list[str]]:
    code = run_guarded(cli, argv, debug=False)
    return code, capsys.readouterr().err.splitlines()


def test_connect_says_a_local_port_in_use_before_it_reads_the_cluster(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        for dry in ([], ["--dry-run"]):
            argv = ["workload", "connect", "nb", "--cluster", "c", "--local-port", str(port)]
            code, err = _run([*argv, *P, *dry], capsys)
            assert code == 1
            assert err[0] == f"error: cannot listen on 127.0.0.1:{port}: Address already in use"


@pytest.mark.parametrize(
    ("flags", "says"),
    [
        (["--provider", "local"], "error: --pathways runs on GKE clusters"),
        (["--namespace", "Team-A"], "error: --namespace 'Team-A' is not a Kubernetes"),
    ],
)
def test_connect_dry_run_refuses_what_the_live_run_refuses(
    flags: list[str], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    for dry in (["--dry-run"], []):
        code, err = _run(["workload", "connect", "nb", "--cluster", "c", *flags, *P, *dry], capsys)
        assert code == 1 and err[0].startswith(says), err


def test_inspect_archive_into_a_missing_folder_is_refused_first(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    archive = tmp_path / "missing" / "b.tar.gz"
    code, err = _run(
        ["cluster", "inspect", "--cluster", "c", "--archive", str(archive), *P], capsys
    )
    assert code == 1
    assert err[0] == f"error: --archive {archive}: the folder {archive.parent} does not exist"


@pytest.mark.parametrize("since", ["400d", "99999999999d"])
def test_logs_since_out_of_range_is_refused_first(
    since: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, err = _run(["workload", "logs", "t", "--cluster", "c", "--since", since, *P], capsys)
    assert code == 1 and err[0] == f"error: --since {since} is out of range", err


@pytest.mark.parametrize("command", [["ssh", "--command", "true"], ["scp", "a", "b"]])
def test_ssh_on_a_cluster_recorded_as_gke_does_not_fall_back(
    command: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    cluster_index.record("g1", "gke")
    code, err = _run([*command, "--cluster", "g1", *P], capsys)
    assert code == 1
    assert err[0].startswith("error: cluster g1 was created with --provider gke on this machine")
