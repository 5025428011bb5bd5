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

from xcli import config, paths
from xcli.errors import PlanFailed, UserError

F = TypeVar("F", bound=Callable[..., Any])

Output = Literal["text", "json"]


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
        return config.require("project", self.project_flag).value

    @functools.cached_property
    def zone(self) -> str:
        return config.require("zone", self.zone_flag).value


def common_options(func: F) -> F:
    """Add --project --zone --output --dry-run --out --yes; pass them as `common`."""

    @click.option(
        "--project",
        "project_flag",
        metavar="PROJECT",
        help="Google Cloud project (default: XCLI_PROJECT, config file, gcloud).",
    )
    @click.option(
        "--zone",
        "zone_flag",
        metavar="ZONE",
        help="Zone, e.g. us-east5-b; the region is derived from it.",
    )
    @click.option(
        "--output",
        "-o",
        type=click.Choice(["text", "json"]),
        default="text",
        show_default=True,
        help="Output format.",
    )
    @click.option(
        "--dry-run",
        is_flag=True,
        default=False,
        help="Print the exact requests and manifests instead of sending them "
        "(also XCLI_DRY_RUN=1). Needs no credentials.",
    )
    @click.option(
        "--out",
        type=click.Path(file_okay=False, path_type=Path),
        default=None,
        help="With --dry-run: also write a deployment folder (plan.json, manifests/).",
    )
    @click.option("--yes", "-y", is_flag=True, default=False, help="Do not ask for confirmation.")
    @functools.wraps(func)
    def wrapper(
        *args: Any,
        project_flag: str | None,
        zone_flag: str | None,
        output: Output,
        dry_run: bool,
        out: Path | None,
        yes: bool,
        **kwargs: Any,
    ) -> Any:
        from xcli.env_flags import env_bool

        common = Common(
            project_flag=config.check_flag("project", project_flag),
            zone_flag=config.check_flag("zone", zone_flag),
            output=output,
            dry_run=env_bool("XCLI_DRY_RUN") or dry_run,
            yes=env_bool("XCLI_YES") or yes,
            out=out,
        )
        if out is not None and not common.dry_run:
            raise UserError(
                "--out writes a dry-run deployment folder", hint="add --dry-run, or drop --out"
            )
        from xcli.user_files import check_writable_folder

        if out is not None:
            check_writable_folder(out, "--out")
        # xcli's state folder (local clusters, run logs, known_hosts), checked once up front
        check_writable_folder(
            paths.state_dir(), "XCLI_HOME" if os.environ.get("XCLI_HOME") else "state folder"
        )
        return func(*args, common=common, **kwargs)

    return wrapper  # type: ignore[return-value]


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


def run_plan(common: Common, plan: Any, handlers: Callable[[], Mapping[str, Any]]) -> int:
    """Print the plan (dry-run) or run it with the provider's live handlers."""
    if common.dry_run:
        from xcli.execute.dry import DryRunExecutor

        DryRunExecutor(sys.stdout, common.output, common.out).run(plan)
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
