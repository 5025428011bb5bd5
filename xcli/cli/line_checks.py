"""The command line as typed, checked once for every command, before click parses it.

cli/main.py's root group runs `check_line` on what follows `xcli` (after XPK's names are
translated), so every command and every option, including ones added later, gets the same rules
from this one place instead of flag by flag:

- An empty value is an error, never "not given": `--older-than ''` used to mean "no age filter"
  and deleted every failed workload; `--script-dir ''` packed the current folder. An option
  given with `''`, `--flag=`, a value of spaces only, or an empty argument is refused.
- A number is written with the digits 0-9 only: Python's int(), which click's number types call,
  reads `1_0` as 10 (PEP 515) and full-width or Arabic-Indic digits as numbers, and float()
  also takes `nan`, `inf` and `1_0.5`; a user never means any of them.
- Every problem of the line is reported in one run, each with its hint (issue 36, "one answer
  per mistake"): the empty values and numbers above, each value its click type refuses (a
  choice, a range) and each flag whose callback is a pure format check
  (`formats.flag_callback`), after XPK's names that `xpk_names.translate` refused on the same
  line (and, beside those, an option nobody knows). Anything else alone (a missing option, an
  unknown one) is left to click, which reports it as it always has.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import click

from xcli.errors import InputErrors, UserError

_INT = re.compile(r"[+-]?[0-9]+")
_FLOAT = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


@dataclass(frozen=True)
class Given:
    """One value on the command line and the parameter it is for."""

    param: click.Parameter
    name: str  # as typed: --older-than, -o, or an argument's NAME
    value: str


def check_line(
    root: click.Group,
    ctx: click.Context,
    args: list[str],
    earlier: Sequence[tuple[str, str]] = (),
    beside: Sequence[tuple[str, str]] = (),
) -> None:
    """Raise InputErrors naming every problem of `args` (what follows `xcli`), after those
    found `earlier` on the line (XPK's refused names, cli/xpk_names.py), or return. `beside`
    (options nobody knows) are named only with other problems: alone they are click's."""
    found = _command(root, ctx, args)
    if found is None:
        _raise([*earlier, *beside] if earlier else [])
        return
    command, path, rest = found
    if any(a in ("--help", "-h") for a in _before_dashes(rest)):
        return  # --help answers whatever else the line holds
    problems: list[tuple[str, str]] = list(earlier)
    ours = bool(earlier)
    for given in values(command, ctx, rest):
        problem = _line_problem(given, path)
        ours = ours or problem is not None
        problem = problem or _value_problem(given, ctx, path)
        if problem is not None:
            problems.append(problem)
    if ours or len(problems) > 1 or (problems and beside):
        _raise([*problems, *beside])
    # one value its type or callback refuses: click reports it, as it always has


def _raise(problems: list[tuple[str, str]]) -> None:
    if problems:
        raise InputErrors(problems)


def _before_dashes(args: list[str]) -> list[str]:
    return args[: args.index("--")] if "--" in args else args


def _command(
    root: click.Group, ctx: click.Context, args: list[str]
) -> tuple[click.Command, str, list[str]] | None:
    """The command the words of `args` name, its path and the tokens after its name."""
    command: click.Command = root
    words = ["xcli"]
    i = 0
    while isinstance(command, click.Group):
        while i < len(args) and args[i].startswith("-"):
            i += 1  # a group's own option: --help, --version (flags only)
        if i >= len(args):
            return None
        sub = command.get_command(ctx, args[i])
        if sub is None:
            return None  # click says "No such command" with its list
        command, i = sub, i + 1
        words.append(sub.name or "")
    return command, " ".join(words), args[i:]


def values(command: click.Command, ctx: click.Context, args: list[str]) -> Iterator[Given]:
    """Each value `args` gives `command`'s options and arguments, as click will read them."""
    longs: dict[str, click.Option] = {}
    shorts: dict[str, click.Option] = {}
    for param in command.get_params(ctx):
        if isinstance(param, click.Option) and _takes_value(param):
            for opt in param.opts:
                (longs if opt.startswith("--") else shorts)[opt] = param
    arguments = [p for p in command.get_params(ctx) if isinstance(p, click.Argument)]
    positional = 0
    i = 0
    while i < len(args):
        token = args[i]
        i += 1
        if token == "--":
            for rest in args[i:]:
                yield from _argument(arguments, positional, rest)
                positional += 1
            return
        if token.startswith("--"):
            name, eq, value = token.partition("=")
            option = longs.get(name)
            if option is None:
                continue  # a flag, or unknown: click reports an unknown one
            if eq:
                yield Given(option, name, value)
                continue
            for value in args[i : i + max(option.nargs, 1)]:
                yield Given(option, name, value)
            i += max(option.nargs, 1)
        elif token.startswith("-") and len(token) > 1:
            option = shorts.get(token[:2])
            if option is None:
                continue
            if len(token) > 2:
                yield Given(option, token[:2], token[2:])
            elif i < len(args):
                yield Given(option, token, args[i])
                i += 1
        else:
            yield from _argument(arguments, positional, token)
            positional += 1


def _takes_value(option: click.Option) -> bool:
    return not option.is_flag and not option.count


def _argument(arguments: list[click.Argument], n: int, value: str) -> Iterator[Given]:
    # an argument of nargs=-1 takes every position from its own on
    taking = [a for a in arguments for _ in range(a.nargs if a.nargs > 0 else 1)]
    if n < len(taking):
        argument = taking[n]
    elif arguments and arguments[-1].nargs < 0:
        argument = arguments[-1]
    else:
        return  # an extra argument: click says so
    yield Given(argument, argument.human_readable_name, value)


def _line_problem(given: Given, path: str) -> tuple[str, str] | None:
    """What click would take but no user means: an empty value, a number not in 0-9."""
    name, value, param = given.name, given.value, given.param
    if not value.strip():
        what = "an empty value" if value == "" else "only spaces"
        optional = isinstance(param, click.Option) and not param.required
        leave = ", or leave it out for its default" if optional else ""
        return (f"{name} was given {what}", f"give {name} a value{leave} (`{path} --help`)")
    number = _number_pattern(param.type)
    if number is not None and not number.fullmatch(value.strip()):
        return (
            f"{name} {value[:40]!r} is not a number written with the digits 0-9",
            f"write it as digits only, e.g. {name} {_digits(value)}",
        )
    return None


def _value_problem(given: Given, ctx: click.Context, path: str) -> tuple[str, str] | None:
    """What click would refuse, found now so that the line's other problems come with it."""
    value, param = given.value, given.param
    if isinstance(param.type, (click.Choice, click.types.IntParamType, click.types.FloatParamType)):
        convert: Any = param.type.convert  # typed for numbers; takes the text as click does
        try:
            converted = convert(value, param, ctx)
        except click.BadParameter as exc:
            message = " ".join(exc.format_message().split())
            return (message, f"`{path} --help` lists the options, with examples")
    else:
        converted = value
    if getattr(param.callback, "pure_check", False) and param.callback is not None:
        try:
            param.callback(ctx, param, (converted,) if param.multiple else converted)
        except UserError as exc:
            return (exc.message, exc.hint)
    return None


def _number_pattern(kind: Any) -> re.Pattern[str] | None:
    if isinstance(kind, click.types.IntParamType):
        return _INT
    if isinstance(kind, click.types.FloatParamType):
        return _FLOAT
    return None


def _digits(value: str) -> str:
    kept = "".join(str(int(c)) if c.isdigit() else c for c in value if c != "_")
    return kept if _FLOAT.fullmatch(kept) else "10"
