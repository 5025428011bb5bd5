"""`xcli workload create`'s flags: the checks that need no cluster (any kind of workload), the
frozen request they become, and the facts reader --dry-run chooses.

Turning the request into a WorkloadSpec is the workload package's (xcli/workload/request.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from xcli.errors import UserError
from xcli.spec import check_duration
from xcli.workload.request import WorkloadRequest, exit_codes, requested_accelerator
from xcli.workload.spec import DEFAULT_MAX_DISRUPTIONS, parse_env

if TYPE_CHECKING:
    from xcli.cli.common import Common
    from xcli.workload.facts import Facts


def precheck(flags: dict[str, Any], extra_restart_codes: bool) -> None:
    """Every check that needs no cluster, run before the cluster is read (live or not)."""
    from xcli.catalog import lookup
    from xcli.spec import check_name

    check_name(flags["cluster"], "cluster", 40)
    check_name(flags["name"], "workload", 63)
    accelerator = requested_accelerator(flags["tpu_type"], flags["device_type"])
    if accelerator:
        from xcli.cli.cluster import check_counts

        check_counts(
            lookup(accelerator), flags["tpu_type"], flags["num_slices"], flags["num_nodes"]
        )
    if exit_codes(flags["restart_on_exit_codes"]) and not extra_restart_codes:
        raise UserError(
            f"--restart-on-exit-codes applies only to --provider gke; on {flags['provider']} "
            "clusters every worker failure restarts (up to --max-restarts)",
            hint="drop --restart-on-exit-codes",
        )
    parse_env(flags["env_pairs"], flags["env_file"])
    check_duration(flags["ttl_after_finished"], "--ttl-after-finished", 60, 365 * 86400)
    check_duration(flags["termination_grace_period"], "--termination-grace-period", 1, 86400)
    image = str(flags["image"] or "")
    if image != image.strip() or not image.isprintable():
        raise UserError(
            f"--docker-image {image!r} has whitespace or control characters",
            hint="write the image reference without them, e.g. us-docker.pkg.dev/p/r/img:1",
        )


def refuse_hang_after(flags: dict[str, Any], watched: bool) -> None:
    """--hang-after: checked here (before the cluster is read), applied where xcli watches."""
    from xcli.plan.hang import parse_hang_after

    if flags.get("hang_after") is None:
        return
    parse_hang_after(flags["hang_after"])
    if not watched:
        raise UserError(
            f"--hang-after applies to VM-style clusters; on {flags['provider']} xcli runs no "
            "watcher beside the workload (docs/workload.md, Hangs)",
            hint="drop --hang-after, or run on --provider queued-resource or local",
        )


def refuse_slice_scope(flags: dict[str, Any], allowed: bool) -> None:
    """--restart-scope slice, where the kind's program cannot survive one slice restarting."""
    if flags.get("restart_scope", "all") == "slice" and not allowed:
        raise UserError(
            "--restart-scope slice: the slices of this workload run one program that must "
            "restart together (a plain multislice JobSet is not elastic)",
            hint="drop --restart-scope, or run an elastic Pathways workload: --pathways "
            "--elastic-slices N",
        )


def refuse_kubernetes_files(flags: dict[str, Any], manifests: bool) -> None:
    """--output-manifest-file, --cluster-metadata and --storage-record are files of a kind
    whose objects are Kubernetes manifests (`manifests`: the kind's registry entry)."""
    if manifests:
        return
    if flags.get("use_tensorboard"):
        raise UserError(
            f"--vertex-tensorboard is for GKE workloads (JobSets), not --provider "
            f"{flags['provider']}",
            hint="drop --vertex-tensorboard",
        )
    if flags.get("env_secret"):
        raise UserError(
            f"--env-secret is for Kubernetes workloads; --provider {flags['provider']} keeps "
            "the values out of the plan already (a file on each worker, never printed)",
            hint="drop --env-secret",
        )
    if flags["output_manifest_file"] is not None or flags["cluster_metadata"] is not None:
        raise UserError(
            "--output-manifest-file and --cluster-metadata are for GKE workloads (JobSets)",
            hint=f"drop them for --provider {flags['provider']}",
        )
    if flags.get("storage_record"):
        raise UserError(
            "--storage-record is for GKE workloads with --dry-run",
            hint="drop it: VM-style clusters keep their storage records on this machine",
        )


def facts_for(common: Common, metadata: Path | None, records: Sequence[Path] = ()) -> Facts:
    """What the run reads before it plans: the cluster (live), or with --dry-run the
    --cluster-metadata and --storage-record files and the flags."""
    from xcli.app.workload_facts import LIVE_FACTS, DryFacts

    if common.dry_run:
        return DryFacts(metadata, tuple(records))
    if records:
        raise UserError(
            "--storage-record is for --dry-run",
            hint="drop it: a live run reads the cluster's storage records itself",
        )
    if metadata is not None:
        raise UserError(
            "--cluster-metadata is for --dry-run",
            hint="drop it: a live run reads the cluster itself",
        )
    return LIVE_FACTS


def request_from(flags: dict[str, Any]) -> WorkloadRequest:
    """The create flags (checked by precheck) as a frozen request."""
    return WorkloadRequest(
        cluster=flags["cluster"],
        name=flags["name"],
        command=flags["command"],
        image=flags["image"],
        provider=flags["provider"],
        tpu_type=flags["tpu_type"],
        device_type=flags["device_type"],
        num_slices=flags["num_slices"],
        num_nodes=flags["num_nodes"],
        flex_start=bool(flags.get("flex_start")),
        priority=flags["priority"],
        max_restarts=flags["max_restarts"],
        max_disruptions=(
            DEFAULT_MAX_DISRUPTIONS
            if flags.get("max_disruptions") is None
            else flags["max_disruptions"]
        ),
        hang_after=flags.get("hang_after"),
        restart_scope=flags.get("restart_scope") or "all",
        recover=bool(flags.get("recover")),
        restart_on_exit_codes=flags["restart_on_exit_codes"],
        env_pairs=tuple(flags["env_pairs"]),
        env_file=flags["env_file"],
        env_secret=bool(flags.get("env_secret")),
        ttl_after_finished=flags["ttl_after_finished"],
        termination_grace_period=flags["termination_grace_period"],
        replace=flags["replace"],
        namespace=flags["namespace"],
        scheduler=flags.get("scheduler"),
        detach=flags["detach"],
        show_marks=bool(flags.get("show_marks")),
        output_manifest_file=flags["output_manifest_file"],
        storage=tuple(flags.get("storage") or ()),
        compilation_cache=flags.get("compilation_cache"),
        checkpoint_dir=flags.get("checkpoint_dir"),
        experiment=experiment_of(flags),
    )


def experiment_of(flags: dict[str, Any]) -> str | None:
    """--vertex-tensorboard [--experiment-name NAME]; the name alone is refused."""
    name = flags.get("experiment_name")
    if not flags.get("use_tensorboard"):
        if name:
            raise UserError(
                "--experiment-name applies only with --vertex-tensorboard",
                hint="add --vertex-tensorboard, or drop --experiment-name",
            )
        return None
    if flags.get("pathways_given"):
        raise UserError(
            "--vertex-tensorboard is for JobSet workloads; xcli's Pathways workloads do not "
            "create an Experiment yet",
            hint="drop --vertex-tensorboard, or pass the variables with --env "
            "(UPLOAD_DATA_TO_TENSORBOARD, TENSORBOARD_REGION, TENSORBOARD_NAME, EXPERIMENT_NAME)",
        )
    return str(name or "")
