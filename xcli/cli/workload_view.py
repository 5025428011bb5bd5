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


def log_lines(output: str, lines: Iterable[LogLine]) -> int:
    """Each line as it comes (--follow streams): a JSON line, or the prefixed text."""
    for line in lines:
        if output != "text":
            record: dict[str, object] = {"worker": line.prefix.strip("[]"), "line": line.text}
            if line.note is not None:
                record["note"] = line.note
            emit_record(output, record)
        else:
            click.echo(f"{line.prefix} {line.text}".lstrip(), err=bool(line.note))
    return 0


def outcome(output: str, found: Outcome) -> int:
    if output != "text":
        emit(output, found.data)
    elif found.message is not None:
        click.echo(found.message, err=True)
    return found.code
