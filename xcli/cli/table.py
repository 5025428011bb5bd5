"""Tables for listings: rich on a terminal, plain aligned columns when piped (stable bytes)."""

from __future__ import annotations

import sys
from collections.abc import Sequence


def print_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(box=None, pad_edge=False, header_style="bold", show_edge=False)
    for header in headers:
        table.add_column(header, no_wrap=True)
    for row in rows:
        table.add_row(*row)
    tty = sys.stdout.isatty()
    Console(width=None if tty else 1000, no_color=not tty, highlight=False).print(table)
