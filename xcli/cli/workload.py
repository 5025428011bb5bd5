"""`xcli workload create`: a JobSet queued by Kueue on a GKE cluster."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from xcli import formats
from xcli.cli import complete
from xcli.cli.common import Common, change_options
from xcli.cli.help_groups import GroupedCommand
from xcli.cli.providers import choice
from xcli.cli.workload_ns import namespace_option
from xcli.cli.workload_scheduler import scheduler_option

PRIORITY_CHOICE = click.Choice(["very-low", "low", "medium", "high", "very-high"])


def _experiment_name(value: str) -> str:
    # TensorboardExperiment IDs: [a-z0-9][a-z0-9-]{0,127} (aiplatform.v1's
    # tensorboards.experiments.create, tensorboardExperimentId)
    import re

    from xcli.errors import UserError

    if not re.fullmatch(r"[a-z0-9][a-z0-9-]{0,127}", value):
        raise UserError(
            f"--experiment-name {value!r} is not an experiment name",
            hint="use 1-128 lowercase letters, digits and hyphens, e.g. test-experiment",
        )
    return value


@click.group()
def workload() -> None:
    """Run training workloads on a cluster's TPUs or GPUs."""


def _workload_options(func: Any) -> Any:
    options: list[Any] = [
        click.option(
            "--cluster",
            required=True,
            help="Cluster to run on.",
            shell_complete=complete.clusters,
        ),
        click.option(
            "--provider",
            type=choice(),
            help="gke: a JobSet queued by Kueue; queued-resource or local: the command on every "
            "worker over SSH, restarting all when one fails (up to --max-restarts). Default: "
            "the provider that created the cluster on this machine, else gke.",
        ),
        click.option("--workload", "name", required=True, help="Workload name."),
        click.option(
            "--docker-image",
            "image",
            help="Container image (gke, queued-resource). Local: optional; without it the "
            "command runs as a plain process on each worker.",
        ),
        click.option(
            "--command",
            help="Command run in every worker (sh -c); with --pathways, in the head. Required "
            "unless --pathways --headless.",
        ),
        click.option(
            "--tpu-type",
            metavar="T",
            help="TPU shape (default: the cluster's).",
            shell_complete=complete.accelerators,
        ),
        click.option(
            "--device-type",
            metavar="T",
            help="TPU or GPU shape (default: cluster's).",
            shell_complete=complete.accelerators,
        ),
        click.option("--num-slices", type=click.IntRange(1, 1024), help="Default: cluster's."),
        click.option("--num-nodes", type=click.IntRange(1, 4096), help="GPU nodes."),
        click.option("--priority", type=PRIORITY_CHOICE, default="medium", show_default=True),
        click.option(
            "--max-restarts",
            type=click.IntRange(0, 10_000),
            default=0,
            show_default=True,
            help="Restart every worker up to this many times. gke: after an exit code of 42, "
            "128-255 or one in --restart-on-exit-codes; any other non-zero exit code fails at "
            "once, and disruptions (preemption, maintenance, node loss) restart outside this "
            "budget (see --max-disruptions). queued-resource and local: after any worker "
            "fails, whatever its exit code.",
        ),
        click.option(
            "--max-disruptions",
            type=click.IntRange(0, 10_000),
            help="gke: restarts after disruptions that do not count against --max-restarts, "
            "at most this many (default 20; a node-pressure eviction is a disruption too).",
        ),
        click.option(
            "--recover",
            is_flag=True,
            help="queued-resource: when a slice is preempted (its queued resource SUSPENDED "
            "by the service), re-create it with the same request, wait, re-pin its host keys "
            "and restart the command on every worker (counts against --max-restarts).",
        ),
        click.option(
            "--restart-scope",
            type=click.Choice(["all", "slice"]),
            default="all",
            show_default=True,
            help="gke --pathways --elastic-slices N: `slice` restarts only the failed slice's "
            "Job (JobSet's RestartJob; the cluster needs `cluster create --slice-restarts`).",
        ),
        click.option(
            "--hang-after",
            metavar="D|Nx",
            help="queued-resource and local: when no worker has printed a new goodput mark "
            "for D (30s, 10m) or for N median step times (10x), save every worker's stacks "
            "(py-spy) beside the logs and restart (a failure: --max-restarts).",
        ),
        click.option(
            "--restart-on-exit-codes",
            metavar="N,M",
            default="",
            help="gke: more exit codes that restart instead of failing (42 and 128-255 always "
            "do). VM-style clusters restart on every failure, so it does not apply there.",
        ),
        click.option("--env", "env_pairs", multiple=True, metavar="K=V", help="Repeatable."),
        click.option("--env-file", type=click.Path(path_type=Path), help="NAME=VALUE lines."),
        click.option(
            "--vertex-tensorboard",
            "use_tensorboard",  # not the name of cluster create's provider flag (issue 31)
            is_flag=True,
            help="gke: create the workload's Experiment in the cluster's Vertex AI Tensorboard "
            "(cluster create --vertex-tensorboard) and pass it in UPLOAD_DATA_TO_TENSORBOARD, "
            "TENSORBOARD_PROJECT/REGION/NAME and EXPERIMENT_NAME, as XPK's "
            "--use-vertex-tensorboard.",
        ),
        click.option(
            "--experiment-name",
            metavar="NAME",
            callback=formats.flag_callback(_experiment_name),
            help="gke, --vertex-tensorboard: the Experiment's name (lowercase letters, digits, "
            "hyphens; default <cluster>-<workload>, as XPK).",
        ),
        click.option(
            "--env-secret",
            is_flag=True,
            help="gke: keep the --env/--env-file values in a Secret xcli creates "
            "(WORKLOAD-env, deleted with the workload); the JobSet holds only the names. "
            "The dry-run never prints the values.",
        ),
        click.option(
            "--ttl-after-finished",
            default="12h",
            show_default=True,
            metavar="D",
            help="Delete the finished workload after D.",
        ),
        click.option(
            "--termination-grace-period",
            default="30s",
            show_default=True,
            metavar="D",
            help="Time between SIGTERM and SIGKILL (to save a checkpoint).",
        ),
        click.option(
            "--output-manifest-file",
            type=click.Path(path_type=Path),
            metavar="F",
            help="Also write the JobSet to F as YAML.",
        ),
        click.option("--replace", is_flag=True, help="Delete a workload of that name first."),
        click.option(
            "--flex-start",
            is_flag=True,
            help="Run on flex-start capacity (XPK's --flex): the cluster must be a "
            "`cluster create --flex-start` one; a --dry-run from flags plans for one.",
        ),
        namespace_option,
        scheduler_option,
        click.option(
            "--show-marks",
            is_flag=True,
            help="queued-resource or local: also print the XCLI_GOODPUT progress lines in "
            "the live output (they are always recorded; `workload logs --show-marks`).",
        ),
        click.option(
            "--detach",
            is_flag=True,
            help="queued-resource or local: run in the background and return at once "
            "(follow with workload status|logs|wait). GKE workloads always run detached.",
        ),
        click.option(
            "--cluster-metadata",
            type=click.Path(path_type=Path),
            metavar="FILE",
            help="With --dry-run: the cluster's metadata (its ConfigMap data, YAML or JSON) "
            "instead of reading the cluster.",
        ),
    ]
    from xcli.cli.workload_capacity import OPTIONS as capacity_options
    from xcli.cli.workload_image import OPTIONS as image_options
    from xcli.cli.workload_pathways import OPTIONS as pathways_options
    from xcli.cli.workload_storage import OPTIONS as storage_options

    every = [*options, *capacity_options, *image_options, *storage_options, *pathways_options]
    for option in reversed(every):
        func = option(func)
    return func


def _create_groups() -> list[tuple[str, list[str]]]:
    """`workload create --help` headings, as `cluster create --help` has them (issue 36)."""
    return [
        (
            "Workload",
            ["cluster", "provider", "name", "command", "namespace", "replace", "show_marks"],
        ),
        (
            "Shape (default: the cluster's)",
            ["tpu_type", "device_type", "num_slices", "num_nodes", "flex_start"],
        ),
        (
            "Capacity (auto-provisioning clusters; default: the cluster's)",
            ["capacity_on_demand", "capacity_spot", "capacity_reservation"],
        ),
        (
            "Image (none given: this folder on python:3.10, as XPK does)",
            [
                "image",
                "base_image",
                "script_dir",
                "image_repository",
                "image_verbose",
                "docker_name",
                "pull_secret",
                "script_include",
            ],
        ),
        ("Environment", ["env_pairs", "env_file", "env_secret"]),
        ("Vertex AI Tensorboard (gke)", ["use_tensorboard", "experiment_name"]),
        (
            "Restarts, priority and lifetime",
            [
                "max_restarts",
                "max_disruptions",
                "restart_scope",
                "recover",
                "hang_after",
                "restart_on_exit_codes",
                "priority",
                "scheduler",
                "ttl_after_finished",
                "termination_grace_period",
                "detach",
            ],
        ),
        (
            "Storage and caches",
            ["storage", "storage_record", "compilation_cache", "checkpoint_dir"],
        ),
        (
            "Pathways (--pathways)",
            [
                "pathways",
                "headless",
                "pathways_version",
                "pathways_gcs_location",
                "elastic_slices",
                "max_slice_restarts",
            ],
        ),
        (
            "Where, output, dry-run",
            [
                "project_flag",
                "zone_flag",
                "output",
                "dry_run",
                "out",
                "output_manifest_file",
                "cluster_metadata",
                "yes",
                "help",
            ],
        ),
    ]


@workload.command("create", cls=GroupedCommand, groups=_create_groups)
@_workload_options
@change_options
def create(common: Common, **flags: Any) -> int:
    """Submit a workload: one pod per TPU VM of every slice (or per GPU node).

    \b
    Examples:
      xcli workload create --cluster demo --workload train-1 \\
          --docker-image us-docker.pkg.dev/p/r/img:1 --command 'python3 train.py'
      xcli workload create --cluster demo --workload t --command 'python3 train.py' \\
          --tpu-type v6e-256 --dry-run     # no image: this folder on python:3.10 (XPK's way)
      xcli workload create --cluster demo --workload t --docker-image img \\
          --command 'python3 train.py' --tpu-type v6e-256 --num-slices 2 --dry-run
      xcli workload create --cluster demo --workload t --docker-image img --namespace team-a \\
          --command 'python3 train.py' --tpu-type v6e-256 --num-slices 1 --dry-run
      xcli workload create --cluster demo --workload t --docker-image img \\
          --command 'python3 train.py' --tpu-type v6e-256 --num-slices 2 \\
          --compilation-cache gs://my-bucket/jax-cache --dry-run

    \b
    Every worker gets MEGASCALE_COORDINATOR_ADDRESS, MEGASCALE_NUM_SLICES, MEGASCALE_SLICE_ID,
    MEGASCALE_PORT (TPU multislice; GKE injects TPU_WORKER_ID and TPU_WORKER_HOSTNAMES), or
    NNODES, NODE_RANK, MASTER_ADDR, MASTER_PORT, JAX_COORDINATOR_ADDRESS, JAX_NUM_PROCESSES,
    JAX_PROCESS_ID (GPU).
    """
    from dataclasses import replace

    from xcli.app import workload as use
    from xcli.cli.providers import registry
    from xcli.cli.wiring import deps
    from xcli.cli.workload_capacity import capacity_from
    from xcli.cli.workload_flags import (
        facts_for,
        precheck,
        refuse_hang_after,
        refuse_kubernetes_files,
        refuse_slice_scope,
        request_from,
    )
    from xcli.cli.workload_image import image_flags
    from xcli.cli.workload_pathways import options_from
    from xcli.cluster_index import provider_for

    pathways = options_from(flags)  # refuses its flags without --pathways, before anything
    flags["pathways_given"] = pathways is not None  # --vertex-tensorboard is JobSet-only
    capacity = capacity_from(flags, lambda: common.project)
    if not flags["command"] and not (pathways and pathways.headless):
        raise click.UsageError("Missing option '--command'.")
    flags["command"] = flags["command"] or ""
    flags["provider"] = provider_for(flags["cluster"], flags["provider"], registry().default())
    kind = use.kind_entry(deps(common), flags["provider"], "pathways" if pathways else None)
    caps = registry().capabilities(flags["provider"])
    image = image_flags(
        flags,
        builds_in_a_pod=kind.manifests,
        plain_process=caps.plain_process,
        needs_image=kind.needs_image,
    )
    if flags["image"] is None:
        if kind.needs_image and (image is None or image.base is None):
            from xcli.errors import UserError

            raise UserError(
                f"--provider {flags['provider']} runs the command in a container: "
                "pass --docker-image",
                hint="e.g. --docker-image python:3.11 (only the local provider can do without)",
            )
        flags["image"] = ""
    precheck(flags, kind.extra_restart_codes)  # all that needs no cluster, before it is read
    refuse_hang_after(flags, kind.hang_watch)
    refuse_slice_scope(flags, kind.slice_restarts)
    if flags.get("max_disruptions") is not None and not kind.extra_restart_codes:
        from xcli.errors import UserError

        raise UserError(
            "--max-disruptions bounds a GKE JobSet's free restarts; here every failure "
            "restarts within --max-restarts",
            hint="drop --max-disruptions",
        )
    if flags.get("recover") and (not caps.recover or flags["detach"]):
        from xcli.errors import UserError

        raise UserError(
            "--recover re-creates a preempted queued resource from this xcli, in the "
            f"foreground: not on {flags['provider']}{' with --detach' if flags['detach'] else ''}",
            hint="drop --recover (GKE restarts preempted slices itself; a detached run "
            "restarts, without re-creating, up to --max-restarts)",
        )
    if flags["output_manifest_file"] is not None:
        from xcli.user_files import check_writable_file

        check_writable_file(flags["output_manifest_file"], "--output-manifest-file")
    refuse_kubernetes_files(flags, kind.manifests)
    if capacity is not None and (pathways is not None or not kind.manifests):
        from xcli.errors import UserError

        raise UserError(
            f"--{capacity.kind if capacity.kind != 'reservation' else 'reservation'} chooses "
            "the capacity of a JobSet on an auto-provisioning GKE cluster"
            + (" (not a Pathways workload)" if pathways is not None else ""),
            hint="drop it: the workload runs on its cluster's capacity",
        )
    facts = facts_for(common, flags["cluster_metadata"], flags.get("storage_record") or ())
    made = replace(request_from(flags), pathways=pathways, capacity=capacity)
    request = use.CreateRequest(made, common, image)
    created = use.create(request, deps(common, facts))
    if created.follow is not None and not common.dry_run and common.output == "text":
        click.echo(created.follow, err=True)
    return 0


def _add_commands() -> None:
    """list, status, logs, wait, delete, goodput, connect, profile and stacks live in their own
    modules (each only imports click)."""
    from xcli.cli.workload_connect import connect
    from xcli.cli.workload_delete import delete
    from xcli.cli.workload_profile import profile, stacks
    from xcli.cli.workload_read import goodput, list_workloads, logs, status, wait
    from xcli.cli.workload_stragglers import report, stragglers

    for command in (list_workloads, status, logs, wait, delete, goodput, connect, profile, stacks,
                    stragglers, report):  # fmt: skip
        workload.add_command(command)


_add_commands()
