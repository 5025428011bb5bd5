"""docs/from-gcluster.md (issue 36): generated from `xcli/cli/gcluster_table.py`, and every xcli
flag it names exists on the xcli command it names."""

from __future__ import annotations

import click

from tests.conftest import REPO
from xcli.cli.gcluster_table import ROWS, render
from xcli.cli.main import cli
from xcli.cli.xpk_table import xcli_command


def test_the_generated_page_is_committed() -> None:
    committed = (REPO / "docs" / "from-gcluster.md").read_text(encoding="utf-8")
    assert committed == render(), "run: python -m xcli.cli.gcluster_table > docs/from-gcluster.md"


def test_every_xcli_form_names_a_real_command_and_flags() -> None:
    for row in ROWS:
        if not row.command:
            assert row.note, row.gcluster  # none: the note says why
            continue
        command = xcli_command(cli, tuple(row.command.split()))
        assert command is not None, row.command
        names = {o for p in command.params if isinstance(p, click.Option) for o in p.opts}
        for flag in row.flags:
            assert flag in names, f"xcli {row.command} has no {flag}"


def test_the_page_says_what_restart_on_exit_codes_really_does() -> None:
    (row,) = [r for r in ROWS if "restart-on-exit-codes" in r.gcluster]
    assert "counted against maxRestarts" in row.note and "NotIn" in row.note
