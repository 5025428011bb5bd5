"""The command line's own rules (xcli/cli/line_checks.py): one mechanism for every option.

Every option of every command that takes a value is walked from the click tree, so an option
added tomorrow is covered by the same test without a row of its own.
"""

from __future__ import annotations

from collections.abc import Iterator

import click
import pytest

from xcli.cli.errors import run_guarded
from xcli.cli.main import cli

P = ["--project", "my-proj-1", "--zone", "us-east5-b"]


def _leaves(
    group: click.Group, ctx: click.Context, path: list[str]
) -> Iterator[tuple[list[str], click.Command]]:
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        assert command is not None, name
        if isinstance(command, click.Group):
            yield from _leaves(command, ctx, [*path, name])
        else:
            yield [*path, name], command


def _value_options() -> list[tuple[list[str], str]]:
    ctx = click.Context(cli)
    found = []
    for path, command in _leaves(cli, ctx, []):
        for param in command.get_params(ctx):
            if isinstance(param, click.Option) and not param.is_flag and not param.count:
                found.append(
                    (path, param.opts[-1] if param.opts[-1].startswith("--") else param.opts[0])
                )
    return found


OPTIONS = _value_options()


def test_the_walk_finds_the_options_of_every_command() -> None:
    assert len(OPTIONS) > 150
    assert (["workload", "delete"], "--older-than") in OPTIONS
    assert (["workload", "create"], "--script-dir") in OPTIONS


@pytest.mark.parametrize(
    ("path", "option"), OPTIONS, ids=[f"{' '.join(p)} {o}" for p, o in OPTIONS]
)
def test_an_empty_value_is_refused_by_every_option(
    path: list[str], option: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code = run_guarded(cli, [*path, option, ""], debug=False, obj=None)
    err = capsys.readouterr().err
    assert code == 1, err
    # XPK's translation may say a note first (--authorized-networks implies --private)
    lines = [line for line in err.splitlines() if not line.startswith("note: ")]
    assert lines[0] == f"error: {option} was given an empty value", err
    assert lines[1].startswith(f"hint: give {option} a value"), err


def test_every_problem_of_a_line_is_reported_in_one_run(capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 36: an XPK private-cluster recipe took 4 runs, one error each."""
    argv = [
        "cluster", "create", "--cluster", "c", "--tpu-type", "v5p-8", "--spot",
        "--num-slices", "1_0", "--zone", "", "--output", "bogus", "--network", "Bad Net",
        "--project", "my-proj-1", "--dry-run",
    ]  # fmt: skip
    code = run_guarded(cli, argv, debug=False)
    out, err = capsys.readouterr()
    assert (code, out) == (1, "")
    lines = err.splitlines()
    assert [line.split(" ")[0] for line in lines] == ["error:", "hint:"] * 4, err
    assert lines[0] == "error: --num-slices '1_0' is not a number written with the digits 0-9"
    assert lines[1] == "hint: write it as digits only, e.g. --num-slices 10"
    assert lines[2] == "error: --zone was given an empty value"
    assert "'bogus' is not one of 'text', 'json', 'yaml'" in lines[4]
    assert lines[6] == "error: --network 'Bad Net' is not a valid value"


def test_one_value_its_type_refuses_is_still_clicks_own_message(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = run_guarded(cli, ["catalog", "list", "--output", "bogus"], debug=False)
    assert code == 1
    assert capsys.readouterr().err.startswith("error: Invalid value for '--output' / '-o'")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--num-slices", "1_0"], "--num-slices '1_0' is not a number"),
        (["--num-slices", "+1_0"], "--num-slices '+1_0' is not a number"),
        (["--num-slices=1_0"], "--num-slices '1_0' is not a number"),
    ],
)
def test_numbers_with_underscores_are_refused(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    line = ["cluster", "create", "--cluster", "c", "--tpu-type", "v5p-8", "--spot", *argv, *P]
    assert run_guarded(cli, [*line, "--dry-run"], debug=False) == 1
    assert (
        capsys.readouterr().err.splitlines()[0] == f"error: {message} written with the digits 0-9"
    )


def test_a_plain_number_still_plans(capsys: pytest.CaptureFixture[str]) -> None:
    line = ["cluster", "create", "--cluster", "c", "--tpu-type", "v5p-8", "--spot", *P]
    assert run_guarded(cli, [*line, "--num-slices", "2", "--dry-run"], debug=False) == 0
    assert "(v5p-8 x2, spot)" in capsys.readouterr().out


def test_help_is_answered_whatever_else_the_line_holds(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_guarded(cli, ["workload", "delete", "--older-than", "", "--help"], debug=False) == 0
    assert "Usage: xcli workload delete" in capsys.readouterr().out


def test_values_after_a_double_dash_are_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_guarded(cli, ["config", "set", "--", "project", ""], debug=False) == 1
    assert capsys.readouterr().err.startswith("error: VALUE was given an empty value")


def test_cluster_creates_own_refusals_come_together(capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 36: the flag checks of `cluster create` that do not depend on each other are all
    reported in one run (errors.collect), not one per run."""
    argv = ["cluster", "create", "--cluster", "c", "--tpu-type", "v5p-8", "--num-nodes", "2"]
    code = run_guarded(cli, [*argv, *P, "--dry-run"], debug=False)
    err = capsys.readouterr().err.splitlines()
    assert code == 1
    assert err[0] == "error: --num-nodes counts GPU VMs; v5p-8 is a TPU slice"
    assert err[2] == "error: choose how to get capacity"
    assert len(err) == 4


def _errors(err: str) -> list[tuple[str, str]]:
    lines = err.splitlines()
    return [(line, lines[i + 1]) for i, line in enumerate(lines) if line.startswith("error: ")]


def test_xpks_filestore_attach_gets_every_answer_in_one_run(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Issue 36, F9: XPK's storage.md:67 took five runs, one error each. As typed (its shell
    variables unset), one run names all five, each with its hint; the next run plans."""
    line = ["storage", "attach", "test-fs-storage", "--type=gcpfilestore", "--auto-mount=false",
            "--mount-point=/data-fs", "--readonly=false", "--size=1024", "--tier=BASIC_HDD",
            "--access_mode=ReadWriteMany", "--vol=default", "--project=", "--cluster=",
            "--zone=", "--dry-run"]  # fmt: skip
    assert run_guarded(cli, line, debug=False) == 1
    found = _errors(capsys.readouterr().err)
    assert [e for e, _ in found] == [
        "error: `xcli storage attach` takes no --tier (XPK's `storage create` has it)",
        "error: --project was given an empty value",
        "error: --cluster was given an empty value",
        "error: --zone was given an empty value",
        "error: No such option '--access_mode'.",
    ]
    assert all(hint.startswith("hint: ") for _, hint in found)
    assert found[-1][1] == "hint: did you mean --access-mode?"
    fixed = [t for t in line if not t.startswith(("--tier", "--project", "--cluster", "--zone"))]
    fixed = [t.replace("--access_mode", "--access-mode") for t in fixed]
    assert run_guarded(cli, [*fixed, "--cluster=xpk-test", *P], debug=False) == 0
    assert "Plan: attach filestore storage test-fs-storage" in capsys.readouterr().out


def test_xpks_private_cluster_recipe_gets_every_answer_in_one_run(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """XPK's clusters.md:175 private cluster took four runs. Its XPK names are all taken now
    (--create-vertex-tensorboard since issue 36), so one run gives the command's own checks
    together (no zone set, no capacity chosen: XPK asks for a capacity too). A line with a
    refused XPK name gets those refusals first, then the command's checks: the two phases are
    not merged, since the second needs the line click parses once the first is right."""
    for name in ("XCLI_ZONE", "CLOUDSDK_COMPUTE_ZONE"):
        monkeypatch.delenv(name, raising=False)
    line = ["cluster", "create", "--cluster=xpk-private-cluster", "--tpu-type=v4-8",
            "--num-slices=2", "--private", "--create-vertex-tensorboard", "--project",
            "my-proj-1", "--dry-run"]  # fmt: skip
    checks = ["error: no zone set", "error: choose how to get capacity"]
    assert run_guarded(cli, line, debug=False) == 1
    found = _errors(capsys.readouterr().err)
    assert [e for e, _ in found] == checks
    assert all(hint.startswith("hint: ") for _, hint in found)
    assert run_guarded(cli, [*line, "--enable-mtc"], debug=False) == 1
    found = _errors(capsys.readouterr().err)
    assert [e for e, _ in found] == [
        "error: XPK's --enable-mtc is not taken by `xcli cluster create`"
    ]


def test_an_unknown_option_is_named_beside_a_value_problem(
    capsys: pytest.CaptureFixture[str],
) -> None:
    line = ["storage", "attach", "fs", "--type", "gcsfuse", "--bogus", "--project=",
            "--cluster", "c", "--dry-run"]  # fmt: skip
    assert run_guarded(cli, line, debug=False) == 1
    assert [e for e, _ in _errors(capsys.readouterr().err)] == [
        "error: --project was given an empty value",
        "error: No such option '--bogus'.",
    ]
    # alone, it is click's: exit 2 with its own words, as on every command
    line.remove("--project=")
    assert run_guarded(cli, line, debug=False) == 2
    assert "error: No such option '--bogus'." in capsys.readouterr().err
