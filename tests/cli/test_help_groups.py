"""`--help` reads well: cluster create's options under headings, examples on their own lines."""

from __future__ import annotations

import re
from collections.abc import Iterator

import click

from xcli.cli.main import cli


def _commands() -> Iterator[tuple[str, click.Command]]:
    ctx = click.Context(cli)

    def walk(command: click.Command, path: list[str]) -> Iterator[tuple[str, click.Command]]:
        yield " ".join(["xcli", *path]), command
        if isinstance(command, click.Group):
            for name in command.list_commands(ctx):
                sub = command.get_command(ctx, name)
                assert sub is not None
                yield from walk(sub, [*path, name])

    yield from walk(cli, [])


def _help(name: str, command: click.Command) -> str:
    return command.get_help(click.Context(command, info_name=name))


def test_cluster_create_groups_every_option_once() -> None:
    command = dict(_commands())["xcli cluster create"]
    text = _help("xcli cluster create", command)
    headings = [line[:-1] for line in text.splitlines() if line and not line[0].isspace()]
    assert headings[1:] == [
        "Cluster",
        "Capacity",
        "GKE (--provider gke): version, machines, image levers",
        "Networking",
        "Queued resources (--provider queued-resource): TPU VMs",
        "Local emulator (--provider local)",
        "Terraform (gke, queued-resource)",
        "Re-running on an existing cluster",
        "Where, output, dry-run",
    ], "an option added without a heading lands under 'Other options'"
    for param in command.params:
        if isinstance(param, click.Option):
            first = param.opts[0]
            assert (
                len(re.findall(rf"^  (?:-\w, )?{re.escape(first)}(?=[ ,]|$)", text, re.M)) == 1
            ), first
    assert re.search(r"^Where, output, dry-run:\n(  .*\n)*  (-h, )?--help ", text, re.M)


def test_examples_keep_their_line_breaks() -> None:
    for name, command in _commands():
        text = _help(name, command)
        lines = [line.strip() for line in text.splitlines()]
        for raw in (command.help or "").splitlines():
            example = raw.strip()
            if example.startswith("xcli "):
                assert example in lines, f"{name}: an example lost its line (add \\b)"
                # a backslash-newline not doubled in the docstring joins two lines
                assert not re.search(r"\S {3,}--", example), f"{name}: {example}"


def test_workload_create_help_is_grouped_like_cluster_create() -> None:
    # issue 36: one flat list of 40 options before; now headings, and none left over
    from click.testing import CliRunner

    from xcli.cli.main import cli

    out = CliRunner().invoke(cli, ["workload", "create", "--help"]).output
    headings = [line for line in out.splitlines() if line.endswith(":") and line[:1].isupper()]
    image = "Image (none given: this folder on python:3.10, as XPK does):"
    capacity = "Capacity (auto-provisioning clusters; default: the cluster's):"  # issue 38
    assert headings[:4] == ["Workload:", "Shape (default: the cluster's):", capacity, image]
    assert "Other options:" not in out and "Pathways (--pathways):" in headings
