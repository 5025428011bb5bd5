"""`--output` is chosen per command (issue 31): every command offers text, json and yaml as
before, and a command may declare a format of its own that no other command accepts."""

from __future__ import annotations

import importlib

import click
from click.testing import CliRunner

from xcli.cli.common import OUTPUTS, Common, options, plan_format
from xcli.cli.main import COMMANDS


def _commands() -> list[tuple[str, click.Command]]:
    found: list[tuple[str, click.Command]] = []

    def walk(name: str, command: click.Command) -> None:
        if isinstance(command, click.Group):
            for sub, child in command.commands.items():
                walk(f"{name} {sub}", child)
        else:
            found.append((name, command))

    for name, target in COMMANDS.items():
        module, _, attr = target.partition(":")
        walk(name, getattr(importlib.import_module(module), attr))
    return found


def test_every_existing_command_keeps_text_json_yaml() -> None:
    commands = _commands()
    assert len(commands) > 30
    for name, command in commands:
        (output,) = [p for p in command.params if p.name == "output"]
        assert isinstance(output.type, click.Choice), name
        assert tuple(output.type.choices) == OUTPUTS == ("text", "json", "yaml"), name


@click.command("report")
@options(location=False, dry_run=False, out=False, yes=False, outputs=(*OUTPUTS, "html"))
def _report(common: Common) -> None:
    click.echo(f"format={common.output}")


@click.command("plain")
@options(location=False, dry_run=False, out=False, yes=False)
def _plain(common: Common) -> None:
    click.echo(f"format={common.output}")


def test_a_command_offers_a_format_of_its_own() -> None:
    runner = CliRunner()
    ok = runner.invoke(_report, ["--output", "html"])
    assert ok.exit_code == 0 and ok.output == "format=html\n"
    assert "[text|json|yaml|html]" in runner.invoke(_report, ["--help"]).output
    refused = runner.invoke(_plain, ["--output", "html"])
    assert refused.exit_code == 2 and "'html' is not one of 'text', 'json', 'yaml'" in (
        refused.output
    )
    assert runner.invoke(_plain, ["-o", "yaml"]).output == "format=yaml\n"


def test_a_dry_run_prints_its_plan_in_a_plan_format() -> None:
    assert [plan_format(f) for f in ("text", "json", "yaml", "html")] == [
        "text",
        "json",
        "yaml",
        "text",
    ]
