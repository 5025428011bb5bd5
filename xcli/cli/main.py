"""Entry point. Imports click and the standard library only, so `xcli --help` stays fast.

Subcommand modules load when they are called (click's lazy-group pattern); cloud SDKs load
later still, inside the gateways that use them.
"""

from __future__ import annotations

import importlib
import sys
from typing import TYPE_CHECKING, Any

import click

from xcli import __version__

if TYPE_CHECKING:
    from xcli.gateways.backoff import Timing
    from xcli.providers import Registry
    from xcli.providers.terraform_live import Connections
    from xcli.storage.service import StorageGateways
    from xcli.workload.backends import WorkloadGateways

# command name -> "module:attribute"; nothing here is imported until the command runs
COMMANDS = {
    "catalog": "xcli.cli.catalog:catalog",
    "cluster": "xcli.cli.cluster:cluster",
    "config": "xcli.cli.config:config",
    "doctor": "xcli.cli.doctor:doctor",
    "ssh": "xcli.cli.ssh:ssh",
    "scp": "xcli.cli.ssh:scp",
    "storage": "xcli.cli.storage:storage",
    "team": "xcli.cli.team:team",
    "workload": "xcli.cli.workload:workload",
}


class LazyGroup(click.Group):
    """A group whose subcommands are imported on first use."""

    def __init__(self, *args: Any, lazy: dict[str, str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lazy = lazy

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.lazy})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.lazy:
            module, _, attr = self.lazy[cmd_name].partition(":")
            command: click.Command = getattr(importlib.import_module(module), attr)
            return command
        return super().get_command(ctx, cmd_name)

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        # XPK's names, before click parses (and guesses at) them: see cli/xpk_names.py.
        if ctx.parent is None and not ctx.resilient_parsing and args:
            from xcli.cli.line_checks import check_line
            from xcli.cli.xpk_names import Refusals, translate
            from xcli.formats import ascii_numbers

            ascii_numbers(args)
            refused = Refusals()
            args = translate(self, ctx, args, refused)
            # one answer per mistake (issue 36): XPK's refused names and the value checks of
            # the rewritten line, all in one error
            check_line(self, ctx, args, refused.problems, refused.unknown)
        return super().parse_args(ctx, args)

    def invoke(self, ctx: click.Context) -> Any:
        # Ctrl-C in a command that did not catch it: click would print an empty line and raise
        # Abort; one `error: interrupted` line with a hint is the rule (xcli/cli/errors.py).
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            from xcli.errors import Interrupted

            raise Interrupted("interrupted") from None

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # Short help without importing every module.
        rows = [(name, HELP.get(name, "")) for name in self.list_commands(ctx)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


HELP = {
    "catalog": "Look up TPU and GPU shapes: chips, VMs, machine types.",
    "cluster": "Create, list, describe and delete clusters (GKE, queued resources, local).",
    "config": "Set defaults (project, zone) in xcli's config file.",
    "doctor": "Check credentials, APIs, quota and zone before `cluster create` (reads only).",
    "ssh": "Run a command on every worker (streamed, prefixed, with a failure summary).",
    "scp": "Copy files to every worker, or from one.",
    "storage": "Attach buckets, Filestore, Lustre and disks to a cluster for data and checkpoints.",
    "team": "Share a GKE cluster between teams: a namespace, a queue and a quota each.",
    "workload": "Run training workloads: JobSets queued by Kueue on GKE, or on every VM.",
}


@click.group(
    cls=LazyGroup,
    lazy=COMMANDS,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
    epilog="""\b
Examples:
  xcli catalog show v6e-256
  xcli cluster create --cluster demo --tpu-type v6e-256 --num-slices 2 --spot --dry-run
  xcli cluster create --provider local --cluster demo --tpu-type v5litepod-16

Every command that changes anything takes --dry-run (or XCLI_DRY_RUN=1): it prints the exact
requests, manifests and commands, needs no credentials, and prints the same bytes every time.
Exit codes: 0 ok, 1 user or cloud error, 2 usage, 3 internal error, 130 interrupted.""",
)
@click.version_option(__version__, prog_name="xcli")
def cli() -> None:
    """xcli: TPU and GPU capacity, training workloads and commands on every worker."""


def main(
    argv: list[str] | None = None,
    providers: Registry | None = None,
    *,
    workload_gateways: WorkloadGateways | None = None,
    terraform_connections: Connections | None = None,
    storage_gateways: StorageGateways | None = None,
    timing: Timing | None = None,
) -> None:
    """Run the CLI and turn every outcome into one exit code.

    `providers`: another registry of providers than the default (tests bind a provider name to
    a double this way, or put an in-memory Kubernetes API under a provider's clusters with
    `Registry.with_cluster_access`). `timing`: the clocks and sleep of cluster polls.
    `workload_gateways`: how `workload goodput --source cloud-logging` reads Cloud Logging
    (None: the real way; workload commands reach clusters through the registry's ClusterAccess
    and tell time with `timing`). `terraform_connections`: how the
    steps after `terraform apply` reach Google and the cluster. Tests and programs embedding
    xcli pass their own; commands find them on the click context, in one `Dependencies` object.
    """
    from xcli.cli.deps import Dependencies
    from xcli.cli.errors import run_guarded, say_error
    from xcli.env_flags import env_bool
    from xcli.errors import UserError

    try:
        debug = env_bool("XCLI_DEBUG")
    except UserError as exc:
        say_error(exc.message, exc.hint)
        sys.exit(1)
    deps = Dependencies(
        providers=providers,
        workload_gateways=workload_gateways,
        terraform_connections=terraform_connections,
        storage_gateways=storage_gateways,
        timing=timing,
    )
    sys.exit(run_guarded(cli, argv, debug=debug, obj=deps))
