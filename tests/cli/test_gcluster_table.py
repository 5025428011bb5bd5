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
    # at the pinned commit, pkg/orchestrator/gke/gke_job_orchestrator.go:1537-1572 writes
    # FailJob for codes NotIn the list, jobset.tmpl backoffLimit 0 and FailJobSet on
    # PodFailurePolicy: a listed code restarts the JobSet by the backoff limit, counted
    assert "counted against maxRestarts" in row.note and "NotIn" in row.note
    assert "`backoffLimit: 0`" in row.note and "FailJobSet" in row.note
    assert "other code fails the JobSet at once" in row.note
    assert "b75035c9" in row.note  # where the guide's `Ignore`/`In` rule left the code
