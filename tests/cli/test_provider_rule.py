"""One rule for which provider a command on a cluster name means (issue 27).

Without --provider: the provider this machine recorded for the name, else gke; `cluster create` of
a recorded name with another --provider is refused; the dry-run header says which and why.
"""

from __future__ import annotations

import json

import pytest

from xcli import cluster_index
from xcli.cli.errors import run_guarded
from xcli.cli.main import cli
from xcli.errors import UserError

WHERE = ["--project", "my-project", "--zone", "us-east5-b"]
CREATE = ["cluster", "create", "--cluster", "demo", "--tpu-type", "v5litepod-16"]
DELETE = ["cluster", "delete", "--cluster", "demo", "--yes"]


def dry(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, object], str]:
    code = run_guarded(cli, [*argv, "--dry-run", "--output", "json"], debug=False)
    out = capsys.readouterr()
    return code, (json.loads(out.out) if code == 0 else {}), out.err


def test_nothing_recorded_means_gke_and_the_header_says_so(
    capsys: pytest.CaptureFixture[str],
) -> None:
    for argv in ([*CREATE, "--spot"], DELETE):
        code, plan, err = dry(capsys, *argv, *WHERE)
        assert code == 0, err
        assert "GKE" in str(plan["title"])
        assert plan["notes"][0] == (  # type: ignore[index]
            "provider: gke (the default: no --provider, and no cluster demo recorded on this "
            "machine)"
        )


def test_a_recorded_name_means_its_provider_for_create_and_delete_alike(
    capsys: pytest.CaptureFixture[str],
) -> None:
    cluster_index.record("demo", "local")
    for argv in (CREATE, DELETE):
        code, plan, err = dry(capsys, *argv)
        assert code == 0, err
        assert "local cluster demo" in str(plan["title"])
        assert plan["notes"][0] == (  # type: ignore[index]
            "provider: local (this machine recorded cluster demo as local; pass --provider to "
            "choose another)"
        )


def test_create_of_a_recorded_name_with_another_provider_is_refused(
    capsys: pytest.CaptureFixture[str],
) -> None:
    cluster_index.record("demo", "local")
    code, _, err = dry(capsys, *CREATE, "--spot", "--provider", "gke", *WHERE)
    assert code == 1
    assert err.splitlines() == [
        "error: cluster demo was created with --provider local on this machine, not gke",
        "hint: choose another --cluster name, or delete it first: xcli cluster delete "
        "--cluster demo --provider local",
    ]


def test_the_recorded_provider_named_again_is_no_conflict_and_needs_no_note(
    capsys: pytest.CaptureFixture[str],
) -> None:
    cluster_index.record("demo", "local")
    code, plan, err = dry(capsys, *CREATE, "--provider", "local")
    assert code == 0, err
    assert not any(str(n).startswith("provider:") for n in plan["notes"])  # type: ignore[attr-defined]


def test_a_name_recorded_under_two_providers_must_be_named(
    capsys: pytest.CaptureFixture[str],
) -> None:
    cluster_index.record("demo", "local")
    cluster_index.record("demo", "gke")
    code, _, err = dry(capsys, *DELETE, *WHERE)
    assert code == 1 and "known under several providers: gke, local" in err, err
    code, _, err = dry(capsys, *CREATE, *WHERE)
    assert code == 1 and "known under several providers" in err, err


def test_every_command_family_reads_the_same_rule() -> None:
    """ssh, workload and storage resolve through provider_for, which `choose` wraps: a recorded
    name gives its provider; an unrecorded one the command's default (gke; ssh: the first
    provider it can reach)."""
    cluster_index.record("q", "queued-resource")
    assert cluster_index.choose("q", None) == cluster_index.Choice("queued-resource", "recorded")
    assert cluster_index.provider_for("q", None, "gke") == "queued-resource"
    ssh_capable = ["queued-resource", "local"]
    assert cluster_index.provider_for("q", None, ssh_capable[0], ssh_capable) == "queued-resource"
    assert cluster_index.choose("new", None) == cluster_index.Choice("gke", "default")
    assert cluster_index.choose("q", "gke") == cluster_index.Choice("gke", "flag")
    with pytest.raises(UserError, match="created with --provider queued-resource"):
        cluster_index.choose_for_create("q", "gke")
