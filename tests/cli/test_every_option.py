"""Every option of every command shows when it is given: the plan or the output changes, the
line is refused, or a note says why it does nothing (issue 37, "nothing dropped without a word").

The options come from the click tree, the expectations from tests/cli/every_option_rows.py
(one row per option). An option without a row fails the first test, naming it; an option
made to do nothing fails its row (shown by the last test, on a copy of the command whose
callback drops the option's value).
"""

from __future__ import annotations

import contextlib
import copy
import io
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import click
import pytest

from tests.cli.every_option_rows import (
    BASES,
    Gap,
    Note,
    Plan,
    Refused,
    Row,
    Unchecked,
    Writes,
    rows,
)
from xcli.cli.errors import run_guarded
from xcli.cli.main import cli

ROWS = rows()


def _leaves(
    group: click.Group, ctx: click.Context, path: str
) -> Iterator[tuple[str, click.Command]]:
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        assert command is not None, name
        if isinstance(command, click.Group):
            yield from _leaves(command, ctx, f"{path} {name}".strip())
        else:
            yield f"{path} {name}".strip(), command


def _name(option: click.Option) -> str:
    return max(option.opts, key=lambda o: o.startswith("--"))


def every_option() -> list[str]:
    ctx = click.Context(cli)
    return [
        f"{path} {_name(param)}"
        for path, command in _leaves(cli, ctx, "")
        for param in command.get_params(ctx)
        if isinstance(param, click.Option)
    ]


OPTIONS = every_option()


def test_every_option_of_every_command_has_a_row() -> None:
    missing = [key for key in OPTIONS if key not in ROWS]
    assert not missing, (
        "options without a row in tests/cli/every_option_rows.py (say how each shows: "
        "Plan, Refused or Note): " + ", ".join(f"`xcli {key}`" for key in missing)
    )
    stale = [key for key in ROWS if key not in OPTIONS]
    assert not stale, f"rows for options that do not exist: {stale}"


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    for name in ("app", "app2"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "train.py").write_text(f"print({name!r})\n", encoding="utf-8")
    (tmp_path / "f.txt").write_text("hello\n", encoding="utf-8")
    (tmp_path / "a.env").write_text("A=1\n", encoding="utf-8")
    (tmp_path / "meta.yaml").write_text(
        "provider: gke\naccelerator: v5p-8\nnum_slices: '1'\n", encoding="utf-8"
    )
    (tmp_path / "nmeta.yaml").write_text(  # a node auto-provisioning cluster, spot
        "provider: gke\naccelerator: v5p-8\nnum_slices: '1'\ncapacity_type: spot\n"
        "autoprovisioning: 'true'\nautoprovisioning_max_chips: '64'\n",
        encoding="utf-8",
    )
    (tmp_path / "gmeta.yaml").write_text(
        "provider: gke\naccelerator: h200-141gb-8\nnum_nodes: '2'\n", encoding="utf-8"
    )
    (tmp_path / "app" / ".dockerignore").write_text("*.pyc\n", encoding="utf-8")
    (tmp_path / "app" / "old.pyc").write_bytes(b"\0")
    # a secret path --script-dir leaves out unless --script-include names it
    (tmp_path / "app" / ".env").write_text("WANDB_MODE=offline\n", encoding="utf-8")
    subprocess.run(
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(tmp_path / "id")], check=True
    )
    return {
        "{app}": str(tmp_path / "app"),
        "{app2}": str(tmp_path / "app2"),
        "{file}": str(tmp_path / "f.txt"),
        "{env}": str(tmp_path / "a.env"),
        "{meta}": str(tmp_path / "meta.yaml"),
        "{key}": str(tmp_path / "id"),
        "{gmeta}": str(tmp_path / "gmeta.yaml"),
        "{nmeta}": str(tmp_path / "nmeta.yaml"),
        "{home}": str(tmp_path / "home"),
        "{tmp}": str(tmp_path),
    }


def _run(root: click.Command, argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = run_guarded(root, argv, debug=False)
    return code, out.getvalue(), err.getvalue()


def _without(line: tuple[str, ...], drop: tuple[str, ...]) -> list[str]:
    """`line` with the tokens of `drop` (one run of tokens) taken out."""
    if not drop:
        return list(line)
    for i in range(len(line) - len(drop) + 1):
        if line[i : i + len(drop)] == drop:
            return [*line[:i], *line[i + len(drop) :]]
    raise AssertionError(f"{drop} is not in the base line {line}")


def check(row: Row, files: dict[str, str], root: click.Command = cli) -> None:
    """Raise AssertionError when giving the option does not show as the row says."""
    assert not isinstance(row, Unchecked)
    if isinstance(row, Gap):
        row = Plan(row.base, row.extra, row.drop)

    def fill(tokens: list[str]) -> list[str]:
        for key, value in files.items():
            tokens = [t.replace(key, value) for t in tokens]
        return tokens

    base = fill(list(BASES[row.base]))
    if isinstance(row, Writes):
        assert not Path(fill([row.path])[0]).exists()
    code, out, err = _run(root, base)
    assert code == 0, f"the base line `{' '.join(base)}` failed: {err}"
    line = fill([*_without(BASES[row.base], row.drop), *row.extra])
    got, got_out, got_err = _run(root, line)
    where = f"`xcli {' '.join(line)}`"
    if isinstance(row, Plan):
        assert got == 0, f"{where} failed: {got_err}"
        assert (got_out, got_err) != (out, err), f"{where} prints what the line without it prints"
    elif isinstance(row, Refused):
        assert got == 1, f"{where} was not refused (exit {got}): {got_err}"
        assert row.says in got_err, f"{where}: {row.says!r} not in {got_err!r}"
    elif isinstance(row, Note):
        assert got == 0, f"{where} failed: {got_err}"
        assert row.says in got_out + got_err, f"{where}: no note {row.says!r} in its output"
    elif isinstance(row, Writes):
        assert got == 0, f"{where} failed: {got_err}"
        assert Path(fill([row.path])[0]).exists(), f"{where} did not write {row.path}"


def _param(key: str) -> Any:
    row = ROWS.get(key)
    if isinstance(row, Gap):
        return pytest.param(key, marks=pytest.mark.xfail(reason=row.why, strict=True))
    return key


@pytest.mark.parametrize("key", [_param(k) for k in OPTIONS])
def test_giving_the_option_shows(key: str, files: dict[str, str]) -> None:
    row = ROWS.get(key)
    if row is None:
        pytest.fail(f"no row for `xcli {key}` in tests/cli/every_option_rows.py")
    if isinstance(row, Unchecked):
        pytest.xfail(row.why)
    check(row, files)


def _made_to_do_nothing(path: str, option: str) -> click.Group:
    """A root whose command `path` ignores `option`: its callback always gets the default."""
    ctx = click.Context(cli)
    *groups, leaf = path.split()
    parents: list[click.Group] = [cli]
    for name in groups:
        group = parents[-1].get_command(ctx, name)
        assert isinstance(group, click.Group)
        parents.append(group)
    command = parents[-1].get_command(ctx, leaf)
    assert command is not None and command.callback is not None
    param = next(p for p in command.params if isinstance(p, click.Option) and option in p.opts)
    inner: Callable[..., Any] = command.callback

    def ignoring(*args: Any, **kwargs: Any) -> Any:
        default = param.get_default(click.get_current_context())
        # click's "no default" sentinel: the value a command gets for an option not given
        kwargs[str(param.name)] = None if type(default).__name__ == "Sentinel" else default
        return inner(*args, **kwargs)

    child: click.Command = copy.copy(command)
    child.callback = ignoring
    for parent, name in zip(reversed(parents[1:]), reversed(groups), strict=True):
        twin = copy.copy(parent)
        twin.commands = {**parent.commands, leaf if child.name == leaf else name: child}
        child, leaf = twin, name
    root = click.Group("xcli", commands={groups[0] if groups else leaf: child})
    return root


@pytest.mark.parametrize(
    "key",
    ["cluster create --num-slices", "workload create --priority", "cluster inspect --log-lines"],
)
def test_an_option_made_to_do_nothing_fails_its_row(key: str, files: dict[str, str]) -> None:
    path, _, option = key.rpartition(" ")
    row = ROWS[key]
    check(row, files)  # as the command is
    with pytest.raises(AssertionError, match="prints what the line without it prints"):
        check(row, files, _made_to_do_nothing(path, option))
