"""Each error class maps to its exit code, with a one-line message and no traceback."""

from __future__ import annotations

import json
from pathlib import Path

import click
import pytest

from xcli.cli.errors import run_guarded
from xcli.cli.main import cli
from xcli.errors import CloudError, Interrupted, UserError


def test_ok(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_guarded(cli, ["catalog", "show", "v6e-256", "--output", "json"], debug=False) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["name"] == "v6e-256" and data["vms_per_slice"] == 64


def test_user_error_is_one_line_with_a_hint(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_guarded(cli, ["catalog", "show", "v6e-257"], debug=False) == 1
    err = capsys.readouterr().err
    assert err.splitlines() == [
        "error: v6e-257 is not a v6e slice size",
        "hint: did you mean v6e-256? `xcli catalog list --family v6e` lists every size",
    ]
    assert "Traceback" not in err


def test_usage_error_is_2_and_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_guarded(cli, ["catalog", "show", "v6e-8", "--bogus"], debug=False) == 2
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 2 and lines[0].startswith("error: No such option '--bogus'")
    assert lines[1] == "hint: `xcli catalog show --help` lists the options, with examples"
    assert run_guarded(cli, ["nosuchcommand"], debug=False) == 2
    assert capsys.readouterr().err.splitlines() == [
        "error: No such command 'nosuchcommand'.",
        "hint: `xcli --help` lists the commands",
    ]
    assert run_guarded(cli, ["catalog", "show"], debug=False) == 2
    assert capsys.readouterr().err.splitlines()[0] == "error: Missing argument 'NAME'."


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["ssh", "--cluster", "c", "--batch-size", "0", "--command", "true"],
            "error: Invalid value for --batch-size: a positive number, or all",
        ),
        (
            ["ssh", "--cluster", "c", "--engine", "rsh", "--command", "true"],
            "error: Invalid value for '--engine': 'rsh' is not one of 'auto', 'openssh', "
            "'asyncssh'.",
        ),
    ],
)
def test_an_invalid_flag_value_is_a_user_error(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A flag click validates gets the same treatment as one xcli validates: exit 1, one line."""
    assert run_guarded(cli, argv, debug=False) == 1
    assert capsys.readouterr().err.splitlines() == [
        message,
        "hint: `xcli ssh --help` lists the options, with examples",
    ]


def _raising(exc: BaseException) -> click.Command:
    @click.command()
    def boom() -> None:
        raise exc

    return boom


@pytest.mark.parametrize(
    ("exc", "code"),
    [
        (UserError("bad", hint="fix it"), 1),
        (CloudError("quota exceeded", hint="ask for more"), 1),
        (Interrupted("interrupted"), 130),
        (KeyboardInterrupt(), 130),
        (RuntimeError("oops"), 3),
    ],
)
def test_each_error_class(
    exc: BaseException, code: int, capsys: pytest.CaptureFixture[str], isolated_home: Path
) -> None:
    assert run_guarded(_raising(exc), [], debug=False) == code
    err = capsys.readouterr().err
    assert "Traceback" not in err
    if code == 3:
        assert "internal error: RuntimeError: oops" in err
        logs = list((isolated_home / "state" / "logs").glob("error-*.log"))
        assert len(logs) == 1 and "Traceback" in logs[0].read_text()
        assert str(logs[0]) in err


def test_debug_shows_the_traceback(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_guarded(_raising(UserError("bad")), [], debug=True) == 1
    assert "Traceback" in capsys.readouterr().err


def test_config_commands(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_guarded(cli, ["config", "set", "project", "my-proj"], debug=False) == 0
    assert run_guarded(cli, ["config", "get", "project", "-o", "json"], debug=False) == 0
    out = capsys.readouterr().out.splitlines()
    doc = json.loads("\n".join(out[1:]))
    assert doc["value"] == "my-proj" and doc["source"].startswith("config file")
    assert run_guarded(cli, ["config", "set", "zone", "nowhere"], debug=False) == 1
    assert "zone 'nowhere' is not a zone" in capsys.readouterr().err
