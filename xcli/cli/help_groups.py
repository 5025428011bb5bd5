"""Options listed under headings in `--help` (capacity, networking, each provider, ...).

A click Command whose `format_options` writes one section per group, in order, with the
options the group names; options no group names follow under "Other options", so an option
added later is never hidden. Only click's own HelpFormatter: no extension is imported for help
(rich-click would load rich on every `--help`; click-option-group's value is its constraints,
which xcli checks in the use cases).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import click

# (heading, parameter names), or a callable returning them (computed when help is shown, so
# building the command imports nothing more).
Groups = Callable[[], Sequence[tuple[str, Sequence[str]]]]


class GroupedCommand(click.Command):
    """`groups` gives the headings; everything else is a click.Command."""

    def __init__(self, *args: Any, groups: Groups, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.groups = groups

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        records: dict[str, tuple[str, str]] = {}
        for param in self.get_params(ctx):
            record = param.get_help_record(ctx)
            if record is not None and isinstance(param, click.Option) and param.name:
                # click names its own help option after the context's help option names
                name = "help" if param.opts and "--help" in param.opts else param.name
                records[name] = record
        # one first-column width for every section, as click's single "Options" list has
        width = min(30, max((len(first) for first, _ in records.values()), default=0))
        shown: set[str] = set()
        sections = [
            (heading, [n for n in names if n in records]) for heading, names in self.groups()
        ]
        for _, names in sections:
            shown.update(names)
        sections.append(("Other options", [n for n in records if n not in shown]))
        for heading, names in sections:
            rows = [(records[n][0].ljust(width), records[n][1]) for n in names]
            if rows:
                with formatter.section(heading):
                    formatter.write_dl(rows)
