"""How every workload command's result looks on the terminal, whatever the kind of workload:
--output json|yaml prints the data, text prints the lines and tables the kind gave
(xcli/workload/protocol.py). The one place workload output formats are decided."""

from __future__ import annotations

from collections.abc import Iterable

import click

from xcli.cli.common import emit, emit_record
from xcli.cli.table import print_table
from xcli.workload.protocol import Lazy, Listing, LogLine, Outcome, Report, Table


def listing(output: str, found: Listing) -> int:
    if output != "text":
        emit(output, found.records)
    elif not found.records:
        click.echo(found.empty, err=True)
    else:
        print_table(found.table.headers, found.table.rows)
    return 0


def report(output: str, found: Report) -> int:
    if output != "text":
        emit(output, found.data)
        return 0
    for block in found.text:
        if isinstance(block, Table):
            print_table(block.headers, block.rows)
        elif isinstance(block, Lazy):
            line = block.make()
            if line:  # a line that only exists sometimes (a chronic straggler) says nothing
                click.echo(line)
        else:
            click.echo(block)
    return 0


def log_lines(output: str, lines: Iterable[LogLine], timestamps: bool = False) -> int:
    """Each line as it comes (--follow streams): a JSON line, or the prefixed text; with
    `timestamps`, its time first (a JSON `time` field)."""
    for line in lines:
        stamp = _stamp(line.at) if timestamps else ""
        if output != "text":
            record: dict[str, object] = {"worker": line.prefix.strip("[]"), "line": line.text}
            if timestamps:
                record = {"time": stamp or None, **record}
            if line.note is not None:
                record["note"] = line.note
            emit_record(output, record)
        else:
            head = f"{stamp or '-'} " if timestamps else ""
            click.echo(f"{head}{line.prefix} {line.text}".lstrip(), err=bool(line.note))
    return 0


def _stamp(at: float | None) -> str:
    """RFC 3339 in UTC to the microsecond (`2026-12-01T23:40:01.123456Z`); "" if unknown."""
    if at is None:
        return ""
    from datetime import datetime, timezone

    when = datetime.fromtimestamp(at, timezone.utc)
    return when.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def outcome(output: str, found: Outcome) -> int:
    if output != "text":
        emit(output, found.data)
    elif found.message is not None:
        click.echo(found.message, err=True)
    return found.code
