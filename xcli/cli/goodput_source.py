"""`xcli workload goodput --source marks|cloud-logging`: where the goodput numbers come from.

marks (the default): the cluster's own records and the program's XCLI_GOODPUT lines, read by
the workload kind. cloud-logging: the ml-goodput-measurement library's records, read from
Cloud Logging (xcli/workload/goodput/cloud_logging.py); no cluster is read, so it works for any
provider, and `--dry-run` prints the one request it would send.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import click

from xcli.errors import UserError

if TYPE_CHECKING:
    from xcli.cli.common import Common

SOURCES = ("marks", "cloud-logging")


def source_options(func: Any) -> Any:
    for option in (
        click.option(
            "--dry-run",
            "source_dry_run",
            is_flag=True,
            default=False,
            help="With --source cloud-logging: print the Cloud Logging request instead of "
            "sending it (also XCLI_DRY_RUN=1). Needs no credentials.",
        ),
        click.option(
            "--job-name",
            metavar="J",
            help="With --source cloud-logging: the job_name the program's GoodputRecorder "
            "wrote. Default: the workload's name.",
        ),
        click.option(
            "--log-name",
            metavar="L",
            help="With --source cloud-logging: the recorder's logger_name. Default: "
            "goodput_NAME (MaxText's goodput_<run_name>).",
        ),
        click.option(
            "--source",
            type=click.Choice(SOURCES),
            default="marks",
            show_default=True,
            help="marks: the cluster's records and the program's XCLI_GOODPUT lines. "
            "cloud-logging: the ml-goodput-measurement library's records in Cloud Logging.",
        ),
    ):
        func = option(func)
    return func


def source_chosen(common: Common, namespace: str, name: str, source: Mapping[str, Any]) -> bool:
    """True for --source cloud-logging; refuses its options with --source marks."""
    if source["source"] == "marks":
        given = [
            flag
            for flag, key in (("--log-name", "log_name"), ("--job-name", "job_name"))
            if source[key] is not None
        ]
        if source["source_dry_run"]:
            given.append("--dry-run")
        if given:
            raise UserError(
                f"{' and '.join(given)}: only with --source cloud-logging",
                hint="add --source cloud-logging, or drop "
                f"{' and '.join(given)} (workload goodput only reads)",
            )
        return False
    if namespace != "default":
        raise UserError(
            f"--namespace {namespace}: --source cloud-logging reads no cluster",
            hint="drop --namespace; --job-name names the job in the records",
        )
    from xcli.app.workload import check_log_names

    check_log_names(source["log_name"] or f"goodput_{name}", _job(source, name))
    return True


def _job(source: Mapping[str, Any], name: str) -> str:
    return str(source["job_name"] if source["job_name"] is not None else name)


def goodput_from_source(common: Common, name: str, source: Mapping[str, Any]) -> int:
    from xcli.app import workload as use
    from xcli.cli import workload_view as view
    from xcli.cli.wiring import deps
    from xcli.env_flags import env_bool

    dry = bool(source["source_dry_run"]) or env_bool("XCLI_DRY_RUN")
    common = replace(common, dry_run=dry)
    log_name = source["log_name"] or f"goodput_{name}"
    req = use.LoggingRequest(name, log_name, _job(source, name), common)
    if dry:  # the one request a live run sends
        deps(common).run_plan(use.goodput_read_plan(req), dict)
        return 0
    return view.report(common.output, use.goodput_from_logging(req, deps(common)))
