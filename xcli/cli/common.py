"""Options every command takes, and the one function that runs or prints a plan."""

from __future__ import annotations

import functools
import json
import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypeVar

import click

from xcli.errors import PlanFailed, UserError

F = TypeVar("F", bound=Callable[..., Any])

# The formats every command offers; a command may offer more of its own (options(outputs=...)),
# e.g. a report as html, so Common.output is any of the formats the command declared.
Output = str
OUTPUTS: tuple[str, ...] = ("text", "json", "yaml")


@dataclass(frozen=True)
class Common:
    """The common options, parsed. Project and zone resolve lazily (flag, env, file, gcloud)."""

    project_flag: str | None
    zone_flag: str | None
    output: Output
    dry_run: bool
    yes: bool
    out: Path | None

    @functools.cached_property
    def project(self) -> str:
        from xcli import config  # reads YAML: loaded only by commands that need a location

        return config.require("project", self.project_flag).value

    @functools.cached_property
    def zone(self) -> str:
        from xcli import config

        return config.require("zone", self.zone_flag).value


def options(
    *, location: bool, dry_run: bool, out: bool, yes: bool, outputs: tuple[str, ...] = OUTPUTS
) -> Callable[[F], F]:
    """The shared options a command offers, where they mean something; pass them as `common`.

    --output always, with the formats `outputs` names (every command's three by default; a
    command that renders a format of its own adds it, and only that command accepts it);
    --project/--zone (location) on commands that talk to a cloud; --dry-run on commands that
    change something, --out where the dry-run is a plan; --yes (alias --quiet,
    XPK's name) on commands that may ask before changing something. Options not offered keep
    their neutral value in `Common`.
    """

    def decorate(func: F) -> F:
        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            project_flag, zone_flag = (
                kwargs.pop("project_flag", None),
                kwargs.pop("zone_flag", None),
            )
            dry, folder = kwargs.pop("dry_run", False), kwargs.pop("out", None)
            if project_flag is not None or zone_flag is not None:
                from xcli import config  # reads YAML: loaded only when a flag needs checking

                project_flag = config.check_flag("project", project_flag)
                zone_flag = config.check_flag("zone", zone_flag)
            from xcli.env_flags import env_bool

            common = Common(
                project_flag=project_flag,
                zone_flag=zone_flag,
                output=kwargs.pop("output"),
                dry_run=dry_run and (dry or env_bool("XCLI_DRY_RUN")),
                yes=yes and (kwargs.pop("yes", False) or env_bool("XCLI_YES")),
                out=folder,
            )
            if folder is not None and not common.dry_run:
                raise UserError(
                    "--out writes a dry-run deployment folder", hint="add --dry-run, or drop --out"
                )
            if location or dry_run or yes:  # commands that may keep state on this machine
                _check_folders(folder)
            return func(*args, common=common, **kwargs)

        decorated: Any = wrapper
        if yes:
            decorated = click.option(
                "--yes",
                "-y",
                "--quiet",
                "yes",
                is_flag=True,
                default=False,
                help="Do not ask for confirmation (--quiet: XPK's name for it).",
            )(decorated)
        if out:
            decorated = click.option(
                "--out",
                type=click.Path(file_okay=False, path_type=Path),
                default=None,
                help="With --dry-run: also write a deployment folder (plan.json, manifests/).",
            )(decorated)
        if dry_run:
            decorated = click.option(
                "--dry-run",
                is_flag=True,
                default=False,
                help="Print the exact requests and manifests instead of sending them "
                "(also XCLI_DRY_RUN=1). Needs no credentials.",
            )(decorated)
        decorated = output_option(decorated, outputs)
        if location:
            decorated = click.option(
                "--zone",
                "zone_flag",
                metavar="ZONE",
                help="Zone, e.g. us-east5-b; the region is derived from it.",
            )(decorated)
            decorated = click.option(
                "--project",
                "project_flag",
                metavar="PROJECT",
                help="Google Cloud project (default: XCLI_PROJECT, config file, gcloud).",
            )(decorated)
        return decorated  # type: ignore[no-any-return]

    return decorate


def _check_folders(out: Path | None) -> None:
    """The folders a command may write, checked once up front (one line, not a traceback)."""
    from xcli import paths
    from xcli.user_files import check_writable_folder

    if out is not None:
        check_writable_folder(out, "--out")
    # xcli's state folder (local clusters, run logs, known_hosts)
    check_writable_folder(
        paths.state_dir(), "XCLI_HOME" if os.environ.get("XCLI_HOME") else "state folder"
    )


def output_option(func: F, outputs: tuple[str, ...] = OUTPUTS) -> F:
    return click.option(
        "--output",
        "-o",
        type=click.Choice(outputs),
        default="text",
        show_default=True,
        help="Output format (json and yaml: the same data, the same key order).",
    )(func)


# Commands that change something: every shared option.
common_options = options(location=True, dry_run=True, out=True, yes=True)
# Commands that change something but never ask first (nothing to say --yes to).
change_options = options(location=True, dry_run=True, out=True, yes=False)
# Commands that only read from a cloud: where, and in which format; no --dry-run (docs/dry-run.md).
read_options = options(location=True, dry_run=False, out=False, yes=False)
# Commands that read nothing remote (the catalogue, the config file): only --output.
local_options = options(location=False, dry_run=False, out=False, yes=False)


def confirm(common: Common, question: str) -> None:
    """Ask before something destructive, unless --yes; refuse when nobody can answer."""
    if common.yes or common.dry_run:
        return
    if not sys.stdin.isatty():
        from xcli.errors import UserError

        raise UserError(f"{question} needs confirmation", hint="pass --yes to confirm")
    click.confirm(question, abort=True)


def require_answerable(common: Common, what: str) -> None:
    """Refuse before anything is read or sent when `what` will ask and nobody can answer."""
    if common.yes or common.dry_run or sys.stdin.isatty():
        return
    raise UserError(f"{what} needs confirmation", hint="pass --yes to confirm")


def emit_json(value: Any) -> None:
    click.echo(json.dumps(value, indent=2, ensure_ascii=False, default=str))


def emit(output: str, value: Any) -> None:
    """The one renderer of data for --output json|yaml. YAML is the JSON document's data, dumped
    safely in the same key order, so both formats always carry the same fields."""
    if output == "yaml":
        click.echo(to_yaml(value), nl=False)
    else:
        emit_json(value)


def emit_record(output: str, value: Any) -> None:
    """One record of a stream (a log line): a JSON line, or one YAML document."""
    if output == "yaml":
        click.echo(to_yaml(value, explicit_start=True), nl=False)
    else:
        click.echo(json.dumps(value, ensure_ascii=False, default=str))


def to_yaml(value: Any, *, explicit_start: bool = False) -> str:
    import yaml

    data = json.loads(json.dumps(value, ensure_ascii=False, default=str))
    return yaml.safe_dump(
        data, sort_keys=False, allow_unicode=True, explicit_start=explicit_start, width=1000
    )


def plan_format(output: Output) -> Literal["text", "json", "yaml"]:
    """How a dry-run prints its plan: json or yaml as asked, else text (a command's own format,
    such as a report's html, is about its result, not its plan)."""
    return "json" if output == "json" else "yaml" if output == "yaml" else "text"


def run_plan(common: Common, plan: Any, handlers: Callable[[], Mapping[str, Any]]) -> int:
    """Print the plan (dry-run) or run it with the provider's live handlers."""
    if common.dry_run:
        from xcli.execute.dry import DryRunExecutor

        DryRunExecutor(sys.stdout, plan_format(common.output), common.out).run(plan)
        return 0
    from xcli.cli.progress import close_reporter, make_reporter, render_summary
    from xcli.errors import Interrupted
    from xcli.execute.live import LiveExecutor

    reporter = make_reporter(common.output)
    try:
        result = LiveExecutor(handlers(), reporter).run(plan)
    except Interrupted as exc:
        close_reporter(reporter)
        if exc.partial is not None:
            render_summary(exc.partial, common.output)
        raise
    close_reporter(reporter)
    render_summary(result, common.output)
    if not result.ok:
        failed = [r.step.id for r in result.by_status("failed")]
        raise PlanFailed(
            f"{len(failed)} step(s) failed: {', '.join(failed)}",
            hint="fix the cause above, then run the same command again: "
            "what succeeded is kept and only the rest is done",
        )
    return 0
