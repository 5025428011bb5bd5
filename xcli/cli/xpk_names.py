"""The one mechanism that lets XPK's names onto xcli's command line (data: `xpk_vocabulary.py`).

`translate` runs before click parses anything below `xcli` (cli/main.py's LazyGroup calls it):
it finds the command the words name, then rewrites each XPK flag by its fate. Aliases pass;
mapped flags become xcli's; ignored ones are dropped (with a note on stderr when it matters);
refused ones are each an `error:` line with a hint, so click never guesses a nearby spelling
for an XPK name. XPK commands xcli does not have are refused (or mapped) the same way.

Every refusal of the line is collected, not only the first (issue 36, "one answer per
mistake": XPK's Filestore attach of storage.md:67 took five runs): `translate` hands them to
its caller with the rewritten line, which cli/main.py reports together with the value checks
of `line_checks.check_line`. An option neither xcli nor XPK knows is added to them when there
are others (alone, it is click's "No such option", as for every command).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import click

from xcli.cli import xpk_vocabulary as vocab
from xcli.cli.xpk_fate import Fate
from xcli.errors import InputErrors, UserError

Problem = tuple[str, str]  # (message, hint)


@dataclass
class Refusals:
    """What `translate` refused on one line: the XPK names (and xcli flags XPK has on other
    commands), and the options nobody knows, which count only beside the others."""

    problems: list[Problem] = field(default_factory=list)
    unknown: list[Problem] = field(default_factory=list)

    def all(self) -> list[Problem]:
        """Every problem, or none: unknown options alone are click's to report."""
        return [*self.problems, *self.unknown] if self.problems else []


def translate(
    root: click.Group, ctx: click.Context, args: list[str], found: Refusals | None = None
) -> list[str]:
    """`args` (what follows `xcli`) with XPK's names rewritten; each refused one is left out
    and added to `found` (without it: raised, all of them together)."""
    if found is not None:
        return _translate(root, ctx, args, found)
    mine = Refusals()
    out = _translate(root, ctx, args, mine)
    problems = mine.all()
    if problems:
        raise InputErrors(problems) if len(problems) > 1 else UserError(*problems[0])
    return out


def _translate(
    root: click.Group, ctx: click.Context, args: list[str], found: Refusals
) -> list[str]:
    words: list[str] = []
    command: click.Command = root
    i = 0
    while i < len(args) and isinstance(command, click.Group):
        token = args[i]
        if token.startswith("-"):
            return args  # a group's own option (--help, --version): no XPK name involved
        sub = command.get_command(ctx, token)
        if sub is None:
            rest = args[i + 1 :]
            return _other_command(root, ctx, " ".join([*words, token]), rest, args, found)
        words.append(token)
        command = sub
        i += 1
    key = " ".join(words)
    if key == "workload list" and _waits(args[i:]):
        return _wait_form(root, ctx, args[i:], found)
    if key == "cluster create" and ADAPT in (t.partition("=")[0] for t in args[i:]):
        return _adapt_form(root, ctx, args[i:], found)
    if key not in vocab.XPK_FLAGS:
        return args  # an xcli-only command: click parses it as it is
    return args[:i] + _flags(key, command, args[i:], found)


def _waits(rest: list[str]) -> bool:
    return any(t.partition("=")[0] == "--wait-for-job-completion" for t in rest)


def _wait_form(
    root: click.Group, ctx: click.Context, rest: list[str], found: Refusals
) -> list[str]:
    """XPK's `workload list --wait-for-job-completion W [--timeout N]` (N seconds) is
    `xcli workload wait W [--timeout Ns]` (src/xpk/parser/workload.py:523-540 at
    367c838253be); its other flags are the list's, translated as usual."""
    name, timeout, out, j = "", [], [], 0
    while j < len(rest):
        token = rest[j]
        flag, eq, value = token.partition("=")
        j += 1
        if flag in ("--wait-for-job-completion", "--timeout"):
            if not eq and j < len(rest):
                value, j = rest[j], j + 1
            if flag == "--timeout":
                timeout = ["--timeout", f"{value}s" if value.strip().isdigit() else value]
            else:
                name = value
            continue
        out.append(token)
    group = root.get_command(ctx, "workload")
    assert isinstance(group, click.Group)
    wait = group.get_command(ctx, "wait")
    assert wait is not None
    kept = _flags("workload list", wait, out, found)
    return ["workload", "wait", name, *kept, *timeout]


ADAPT = "--adapt-from-ct"


def _adapt_form(
    root: click.Group, ctx: click.Context, rest: list[str], found: Refusals
) -> list[str]:
    """XPK's `cluster create --adapt-from-ct` skips the cluster and node pools and sets up the
    rest, as its `cluster adapt` does (src/xpk/commands/cluster.py l.376-385 and l.106-218 at
    367c838253be): xcli's `cluster adapt`, the other flags translated as that command's."""
    click.echo(
        f"note: {ADAPT}: as `xcli cluster adapt`, which sets up a cluster made by Cluster Toolkit",
        err=True,
    )
    group = root.get_command(ctx, "cluster")
    assert isinstance(group, click.Group)
    adapt = group.get_command(ctx, "adapt")
    assert adapt is not None
    kept = [t for t in rest if t.partition("=")[0] != ADAPT]
    return ["cluster", "adapt", *_flags("cluster adapt", adapt, kept, found)]


def _other_command(
    root: click.Group,
    ctx: click.Context,
    key: str,
    rest: list[str],
    args: list[str],
    found: Refusals,
) -> list[str]:
    """An XPK command xcli spells otherwise (`inspector`: `cluster inspect`), or has not."""
    fate = vocab.COMMANDS.get(key)
    if fate is None:
        return args  # click says "No such command" with its list
    if not fate.to:
        raise UserError(f"`xpk {key}` has no xcli command", hint=fate.note)
    if fate.to[0].startswith("-"):
        return list(fate.to)  # `xpk version`: xcli --version; XPK's shared flags mean nothing
    command: click.Command | None = root
    for word in (w for w in fate.to if not w.startswith("-")):  # then flags it implies
        assert isinstance(command, click.Group)
        command = command.get_command(ctx, word)
    assert command is not None, fate.to
    return [*fate.to, *_flags(key, command, rest, found)]


def _known(command: click.Command) -> dict[str, bool]:
    """The command's own options: name -> takes a value."""
    known = {"--help": False, "-h": False}
    for param in command.params:
        if isinstance(param, click.Option):
            takes = not (param.is_flag or param.count)
            known.update(dict.fromkeys([*param.opts, *param.secondary_opts], takes))
    return known


def _flags(key: str, command: click.Command, args: list[str], found: Refusals) -> list[str]:
    known = _known(command)
    xpk = vocab.flags_of(key)
    out: list[str] = []
    j = 0
    while j < len(args):
        token = args[j]
        j += 1
        if token == "--":
            return out + args[j - 1 :]
        name, eq, value = token.partition("=")
        if not token.startswith("-") or (name not in xpk and name in known):
            out.append(token)
            if token.startswith("-") and not eq and known[name] and j < len(args):
                missing = _missing_value(key, name, args[j], {**known, **xpk})
                if missing is not None:
                    found.problems.append(missing)
                    continue
                out.append(args[j])  # the option's value, even when it starts with "-"
                j += 1
            continue
        if name not in xpk:
            elsewhere = _elsewhere(key, name)
            if elsewhere is None:
                out.append(token)  # click says "No such option", alone; with others, here
                found.unknown.append(_unknown(key, name, [*known, *xpk]))
                continue
            found.problems.append(elsewhere[0])
            if elsewhere[1] and not eq and j < len(args) and not args[j].startswith("-"):
                j += 1  # its value goes with it
            continue
        fate = vocab.fate_of(key, name)
        if fate.kind == "alias" and name not in known and fate.otherwise is not None:
            fate = fate.otherwise
        given: str | None = value if eq else None
        takes = xpk[name] and not eq and j < len(args)
        if takes and fate.switch:  # xcli's own `--readonly` (a switch) is left as it is
            takes = args[j].strip().lower() in ("true", "false")
        if takes:
            missing = _missing_value(key, name, args[j], {**known, **xpk})
            if missing is not None:
                found.problems.append(missing)
                continue
            given = args[j]
            j += 1
        while fate.many and given is not None and j < len(args) and not args[j].startswith("-"):
            given, j = f"{given},{args[j]}", j + 1  # XPK's nargs='+': A B C -> A,B,C
        if fate.kind == "alias":
            out += [token] if eq or given is None else [token, given]
            continue
        try:
            out += _apply(key, name, fate, given)
        except UserError as exc:  # one of the line's refusals: the others are still found
            found.problems.append((exc.message, exc.hint))
            continue
        for implied in fate.implies:
            if implied not in args and implied in known:
                click.echo(f"note: {fate.note}", err=True)
                out.append(implied)
    return out


def _missing_value(key: str, name: str, value: str, names: dict[str, bool]) -> Problem | None:
    """`--cluster --workload w` (XPK's docs/troubleshooting.md:113): the value is missing, and
    the next option would be taken for it; XPK's argparse refuses the line too. A word that only
    starts like an option (`--network=n`) is a value."""
    if value.startswith("--") and value in names:
        return (
            f"{name} has no value: the word after it is the option {value}",
            f"give {name} its value, e.g. `xcli {key} {name} NAME ...`",
        )
    return None


def _unknown(key: str, name: str, names: list[str]) -> Problem:
    """An option neither xcli's command nor XPK has, worded as click words it; the nearest of
    `names` (xcli's and XPK's) as the hint."""
    import difflib

    close = difflib.get_close_matches(name, [k for k in names if k.startswith("--")], n=1)
    hint = f"did you mean {close[0]}?" if close else f"`xcli {key} --help` lists the options"
    return (f"No such option '{name}'.", hint)


def _gcloud(key: str, name: str, fate: Fate, value: str) -> list[str]:
    """The gcloud flags of a pass-through: those xcli has an equal for, as xcli's flags; any
    other refused by its own name."""
    import shlex

    equal, switches, out = dict(fate.gcloud), dict(fate.gcloud_switches), []
    words = shlex.split(value)
    if not words:  # an empty value is a mistake, as for every option, not "no gcloud flags"
        raise UserError(
            f"{name} was given an empty value",
            hint=f"give {name} the gcloud flags XPK passed (e.g. {name}='--network=N'), or "
            "leave it out",
        )
    j = 0
    while j < len(words):
        flag, eq, given = words[j].partition("=")
        j += 1
        if flag in switches and not eq:
            out += [switches[flag]] if switches[flag] else []
            continue
        if not eq and j < len(words) and not words[j].startswith("-"):
            given, j = words[j], j + 1
        if flag not in equal:
            raise UserError(
                f"XPK's {name} passes gcloud's {flag}, which `xcli {key}` has no flag for",
                hint=fate.note,
            )
        out += [equal[flag], given]
    return out


def _apply(key: str, name: str, fate: Fate, value: str | None) -> list[str]:
    if fate.kind == "refused":
        raise UserError(f"XPK's {name} is not taken by `xcli {key}`", hint=fate.note)
    if fate.kind == "ignored":
        if not fate.silent:
            click.echo(f"note: {name} ignored: {fate.note}", err=True)
        return []
    if fate.passthrough:
        return _gcloud(key, name, fate, value or "")
    if fate.positional and value is not None:
        return [value]
    if value is None:
        return list(fate.to)
    renamed = dict(fate.values)
    if value in renamed:
        value = renamed[value]
        if not value:
            if fate.note and fate.switch:  # the value is what xcli does anyway: say so
                click.echo(f"note: {name} accepted: {fate.note}", err=True)
            return []
    elif fate.strict:
        accepted = ", ".join(f"{k}" for k in renamed)
        raise UserError(
            f"{name} {value} has no xcli equivalent on `xcli {key}`",
            hint=f"xcli takes {accepted} here" + (f"; {fate.note}" if fate.note else ""),
        )
    if fate.switch:
        return list(fate.to) if value.strip().lower() == "true" else []
    if fate.suffix and value.isdigit():
        value += fate.suffix
    return [*fate.to, value]


def _elsewhere(key: str, name: str) -> tuple[Problem, bool] | None:
    """A flag xcli's command does not know and XPK has on other commands: refused with no
    spelling guess, and whether XPK gives it a value. None: no XPK command has it."""
    others = [c for c in vocab.XPK_FLAGS if name in vocab.flags_of(c)]
    if not others:
        return None
    problem = (
        f"`xcli {key}` takes no {name} (XPK's `{others[0]}` has it)",
        f"`xcli {key} --help` lists the options",
    )
    return problem, bool(vocab.flags_of(others[0])[name])
