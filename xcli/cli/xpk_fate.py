"""What becomes of an XPK flag or command on xcli's command line: the three fates, as values.

The data (which XPK flag meets which fate) is in `xpk_vocabulary.py`; the one mechanism that
applies it to a command line is `xpk_names.py`. Standard library only: it runs before click
parses any subcommand.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Kind = Literal["alias", "mapped", "ignored", "refused"]


@dataclass(frozen=True)
class Fate:
    """One fate. `alias`: xcli takes the same name, with the same meaning (`note`: where the
    meaning differs in detail). `mapped`: rewritten to `to` (one or more xcli flags) before
    click parses; `values` renames XPK's values (a value mapped to "" drops the flag),
    `strict`: a value not in `values` is refused; `suffix` is added to a bare number (XPK's
    seconds), `switch` turns XPK's `--x=true|false`
    into xcli's `--x` or nothing. `ignored`: accepted and dropped, `note` says why (printed
    on stderr unless `silent`). `refused`: one `error:` line with `note` as the hint;
    `planned` marks what xcli has not built yet (easy to flip to `alias` later).
    `otherwise`: for an alias, the fate where the xcli command lacks that flag."""

    kind: Kind
    note: str = ""
    to: tuple[str, ...] = ()
    values: tuple[tuple[str, str], ...] = ()
    suffix: str = ""
    switch: bool = False
    strict: bool = False
    silent: bool = False
    planned: bool = False
    otherwise: Fate | None = field(default=None, compare=False)
    # XPK's `nargs='+'`: the words after the flag up to the next flag, joined by commas
    many: bool = False
    # flags added when absent, with a note (XPK: --authorized-networks implies --private)
    implies: tuple[str, ...] = ()
    # a gcloud pass-through (`--custom-cluster-arguments`): gcloud flag -> xcli flag; any
    # other gcloud flag in it is refused by name
    gcloud: tuple[tuple[str, str], ...] = ()
    # its gcloud flags that take no value: gcloud flag -> xcli flag ("" when xcli always does it)
    gcloud_switches: tuple[tuple[str, str], ...] = ()
    passthrough: bool = False  # a gcloud pass-through (even one that maps no flag)
    positional: bool = False  # the value becomes the xcli command's argument


def alias(note: str = "", otherwise: Fate | None = None) -> Fate:
    return Fate("alias", note=note, otherwise=otherwise)


def mapped(
    *to: str,
    note: str = "",
    values: dict[str, str] | None = None,
    suffix: str = "",
    switch: bool = False,
    strict: bool = False,
) -> Fate:
    return Fate(
        "mapped",
        note=note,
        to=to,
        values=tuple((values or {}).items()),
        suffix=suffix,
        switch=switch,
        strict=strict,
    )


def many(to: str, *, implies: tuple[str, ...] = (), note: str = "") -> Fate:
    return Fate("mapped", note=note, to=(to,), many=True, implies=implies)


def gcloud(flags: dict[str, str], note: str, switches: dict[str, str] | None = None) -> Fate:
    return Fate(
        "mapped",
        note=note,
        gcloud=tuple(flags.items()),
        gcloud_switches=tuple((switches or {}).items()),
        passthrough=True,
    )


def positional(note: str = "") -> Fate:
    return Fate("mapped", note=note, positional=True)


def ignored(note: str, *, silent: bool = False) -> Fate:
    return Fate("ignored", note=note, silent=silent)


def refused(hint: str) -> Fate:
    return Fate("refused", note=hint)


def planned(hint: str) -> Fate:
    """Refused for now: xcli has not built it yet. Flip to `alias` when it lands."""
    return Fate("refused", note=f"not in xcli yet; {hint}", planned=True)


@dataclass(frozen=True)
class CommandFate:
    """An XPK command: `to` is the xcli command that takes its flags (words after `xcli`),
    or empty when xcli refuses it with `note` as the hint."""

    to: tuple[str, ...] = ()
    note: str = ""
    planned: bool = False


def same(*words: str) -> CommandFate:
    return CommandFate(to=words)


def no_command(hint: str, *, is_planned: bool = False) -> CommandFate:
    return CommandFate(note=f"not in xcli yet; {hint}" if is_planned else hint, planned=is_planned)
