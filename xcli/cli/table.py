"""Tables for listings: rich on a colour terminal, plain aligned columns otherwise.

Piped output (and NO_COLOR) takes the plain path, which never imports rich: a listing piped to
another program costs about what `xcli --help` costs. Both paths lay the columns out the same
way (two spaces between columns, every cell padded to its column's width), so the bytes a
script sees do not depend on whether rich is installed or how fast it is.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import TextIO


def colour(stream: TextIO) -> bool:
    """Whether to style output on `stream`: a terminal, and NO_COLOR unset or empty.
    https://no-color.org: "when present and not an empty string" it disables colour."""
    if os.environ.get("NO_COLOR"):
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def print_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
    if not colour(sys.stdout):
        sys.stdout.write(plain_table(headers, rows))
        sys.stdout.flush()
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(box=None, pad_edge=False, header_style="bold", show_edge=False)
    for header in headers:
        table.add_column(header, no_wrap=True)
    for row in rows:
        table.add_row(*row)
    Console(highlight=False).print(table)


def plain_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    lines = [list(headers), *(list(r) for r in rows)]
    widths = [max(len(line[i]) for line in lines) for i in range(len(headers))]
    return "".join(
        "  ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=True)) + "\n"
        for line in lines
    )
