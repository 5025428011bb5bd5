"""The flags of `xcli workload create` -> (WorkloadSpec, ClusterMeta, existing names, ClusterRef).

The flags arrive as click parsed them (a mapping keyed by parameter name), already checked by
the CLI's precheck (xcli/cli/workload_flags.py) where that needs no cluster.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from xcli.errors import UserError
from xcli.plan.cluster import ClusterRef
from xcli.plan.model import Plan
from xcli.spec import Capacity, check_duration
from xcli.workload.scheduling import DEFAULT_SCHEDULER
from xcli.workload.spec import ClusterMeta, WorkloadSpec, cluster_meta_from_dict, parse_env

if TYPE_CHECKING:
    from xcli.workload.jobset.live import Live
    from xcli.workload.protocol import Session


def build_request(
    session: Session, live: Live, flags: Mapping[str, Any]
) -> tuple[WorkloadSpec, ClusterMeta, list[str], ClusterRef]:
    accelerator = requested_accelerator(flags)
    ref = ClusterRef(flags["cluster"], session.project, session.zone, "gke")
    meta, existing = cluster_facts(session, live, flags, ref, accelerator)
    return spec_from_flags(flags, meta, session.namespace), meta, existing, ref


def requested_accelerator(flags: Mapping[str, Any]) -> str | None:
    tpu_type, device_type = flags["tpu_type"], flags["device_type"]
    if tpu_type and device_type:
        raise UserError(
            "pass at most one of --tpu-type and --device-type",
            hint="--tpu-type for a TPU shape, --device-type for a GPU (or TPU) shape",
        )
    return str(tpu_type or device_type) if (tpu_type or device_type) else None


def spec_from_flags(
    flags: Mapping[str, Any], meta: ClusterMeta, namespace: str = "default"
) -> WorkloadSpec:
    """The workload's flags, checked, with the cluster's facts as defaults (any provider)."""
    import dataclasses

    from xcli.workload.spec import workload_spec

    accelerator = requested_accelerator(flags)
    codes = exit_codes(flags["restart_on_exit_codes"])
    env = parse_env(flags["env_pairs"], flags["env_file"])
    ttl = check_duration(flags["ttl_after_finished"], "--ttl-after-finished", 60, 365 * 86400)
    grace = check_duration(
        flags["termination_grace_period"], "--termination-grace-period", 1, 86400
    )
    spec = workload_spec(
        cluster=flags["cluster"],
        name=flags["name"],
        image=flags["image"],
        command=flags["command"],
        meta=meta,
        accelerator=accelerator,
        num_slices=flags["num_slices"],
        num_nodes=flags["num_nodes"],
        priority=flags["priority"],
        max_restarts=flags["max_restarts"],
        restart_on_exit_codes=codes,
        env=env,
        ttl_after_finished=ttl,
        termination_grace_period=grace,
        replace=flags["replace"],
    )
    scheduler = str(flags.get("scheduler") or DEFAULT_SCHEDULER)
    return dataclasses.replace(spec, namespace=namespace, scheduler=scheduler)


def exit_codes(text: str) -> tuple[int, ...]:
    codes: list[int] = []
    for part in filter(None, (p.strip() for p in text.split(","))):
        if not part.isdigit():
            raise UserError(
                f"--restart-on-exit-codes: {part!r} is not an exit code", hint="e.g. 1,3"
            )
        codes.append(int(part))
    return tuple(codes)


def cluster_facts(
    session: Session, live: Live, flags: Mapping[str, Any], ref: ClusterRef, accelerator: str | None
) -> tuple[ClusterMeta, list[str]]:
    """Live: read the cluster. Dry-run: a metadata file, or the flags describe the cluster."""
    path: Path | None = flags["cluster_metadata"]
    if path is not None:
        if not session.dry_run:
            raise UserError(
                "--cluster-metadata is for --dry-run",
                hint="drop it: a live run reads the cluster itself",
            )
        return cluster_meta_from_dict(
            _load(path), ref.name, source=f"--cluster-metadata {path}"
        ), []
    if not session.dry_run:
        from xcli.workload.jobset.live import read_cluster

        return read_cluster(live, ref, session.namespace, lambda note: session.say(note, err=True))
    if not accelerator:
        raise UserError(
            "a dry-run without a cluster needs the accelerator",
            hint="pass --tpu-type/--device-type and --num-slices (or --num-nodes), "
            "or --cluster-metadata FILE",
        )
    from xcli.catalog import lookup

    accel = lookup(accelerator)
    count_flag = "num_slices" if accel.kind == "tpu" else "num_nodes"
    if flags[count_flag] is None:
        dashed = "--" + count_flag.replace("_", "-")
        raise UserError(f"a dry-run without a cluster needs {dashed}", hint=f"e.g. {dashed} 2")
    meta = ClusterMeta(
        name=ref.name,
        provider="gke",
        accelerator=accel,
        capacity=Capacity("on-demand"),
        num_slices=flags["num_slices"] or 1,
        num_nodes=flags["num_nodes"] or 1,
        source="flags",
    )
    return meta, []


def _load(path: Path) -> dict[str, Any]:
    import yaml

    from xcli.user_files import MIB, read_text

    # "The data stored in a ConfigMap cannot exceed 1 MiB":
    # https://kubernetes.io/docs/concepts/configuration/configmap/
    text = read_text(path, "--cluster-metadata", MIB, "a ConfigMap's limit")
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark else ""
        raise UserError(
            f"--cluster-metadata {path} is not YAML or JSON{where}",
            hint="fix the file; it holds the cluster's ConfigMap data, e.g. accelerator: v6e-256",
        ) from None
    if not isinstance(data, dict):
        raise UserError(f"--cluster-metadata {path} holds no mapping", hint="accelerator: v6e-256")
    return data


def write_manifests(plan: Plan, path: Path) -> None:
    """--output-manifest-file: the objects the plan applies, as multi-document YAML."""
    import yaml

    from xcli.plan.model import symbolic
    from xcli.workload.jobset.plan import manifest_documents

    docs = [symbolic(m) for m in manifest_documents(plan)]
    try:
        path.write_text(yaml.safe_dump_all(docs, sort_keys=False), encoding="utf-8")
    except OSError as exc:
        raise UserError(
            f"cannot write --output-manifest-file {path}: {exc.strerror}",
            hint="name a file in a folder you can write to",
        ) from None
