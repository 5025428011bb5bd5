"""`xcli config set|get|list`: defaults kept in xcli's own config file."""

from __future__ import annotations

import click

from xcli import config as settings
from xcli import paths
from xcli.cli.common import Common, emit, local_options, options


@click.group()
def config() -> None:
    """Set defaults for --project and --zone.

    \b
    Precedence, first wins: the flag; XCLI_PROJECT / XCLI_ZONE; CLOUDSDK_CORE_PROJECT /
    CLOUDSDK_COMPUTE_ZONE; this file; the active gcloud configuration (CLOUDSDK_CONFIG,
    CLOUDSDK_ACTIVE_CONFIG_NAME; its file is read, gcloud is never run); for the project
    only, GOOGLE_CLOUD_PROJECT. `xcli config list` shows where each value came from.
    Examples:
      xcli config set project my-project
      xcli config set zone us-east5-b
      xcli config list
    """


@config.command("set")
@click.argument("key", type=click.Choice(sorted(settings.KEYS)))
@click.argument("value")
@options(location=False, dry_run=True, out=False, yes=False)
def set_(key: str, value: str, common: Common) -> None:
    """Store KEY=VALUE in the config file."""
    settings.read_user_config()  # a broken file is reported before anything else
    settings.check_value(key, value)
    if common.dry_run:
        path, done = paths.config_file(), False
    else:
        path, done = settings.set_user_value(key, value), True
    if common.output != "text":  # --output is not dropped without a word (issue 37)
        emit(common.output, {"key": key, "value": value, "file": str(path), "saved": done})
    elif done:
        click.echo(f"{key} = {value} (saved in {path})")
    else:
        click.echo(f"would set {key} = {value} in {path}")


@config.command("get")
@click.argument("key", type=click.Choice(sorted(settings.KEYS)))
@local_options
def get(key: str, common: Common) -> None:
    """Print the value KEY resolves to, and where it comes from."""
    setting = settings.require(key, None)
    if common.output != "text":
        emit(common.output, {"key": key, "value": setting.value, "source": setting.source})
    else:
        click.echo(f"{setting.value}\t({setting.source})")


@config.command("list")
@local_options
def list_(common: Common) -> None:
    """Print every setting with its value and source."""
    rows = []
    for key in settings.KEYS:
        found = settings.resolve(key, None)
        rows.append(
            {
                "key": key,
                "value": found.value if found else None,
                "source": found.source if found else "not set",
            }
        )
    if common.output != "text":
        emit(common.output, rows)
        return
    for row in rows:
        click.echo(f"{row['key']:10}{row['value'] or '-':30}{row['source']}")
