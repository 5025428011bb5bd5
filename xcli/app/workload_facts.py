"""The two readers of what `workload create` needs before it plans (xcli/workload/facts.py):
`LIVE_FACTS` reads the cluster, `DryFacts` (--dry-run) reads files and flags and no cluster.
The CLI picks one, as it picks app/record.py's `LIVE` or `DRY`. And `cluster_live`: how the
workload commands reach a cluster (the provider's ClusterAccess) and tell time (Deps.timing)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from xcli.errors import UserError

if TYPE_CHECKING:
    from xcli.app.deps import Deps
    from xcli.plan.cluster import ClusterRef
    from xcli.plan.storage import Storage
    from xcli.workload.facts import ApiOf
    from xcli.workload.jobset.live import Live
    from xcli.workload.request import WorkloadRequest
    from xcli.workload.spec import ClusterMeta


class LiveFacts:
    def cluster(
        self, live: Live, ref: ClusterRef, request: WorkloadRequest, say: Callable[[str], None]
    ) -> tuple[ClusterMeta, list[str]]:
        from xcli.workload.jobset.live import read_cluster

        return read_cluster(live, ref, request.namespace, say)

    def storages(
        self, api: ApiOf, namespace: str, names: Sequence[str]
    ) -> tuple[list[Storage], tuple[str, ...]]:
        from xcli.workload.storage_records import from_cluster

        # every workload: auto-mount storages are mounted even when none is named
        return from_cluster(api(), namespace), ()

    def unread(self, names: Sequence[str], records: Sequence[Storage]) -> tuple[str, ...]:
        return ()  # every record was read; a name without one is refused (storage_mounts)

    def workload_state(self, read: Callable[[], str]) -> str:
        return f" ({read()})"

    def selected(self, read: Callable[[], list[str]]) -> list[str] | None:
        return read()


@dataclass(frozen=True)
class DryFacts:
    """--dry-run: a metadata file or the accelerator flags describe the cluster, and
    `--storage-record` files its storages."""

    cluster_metadata: Path | None = None
    storage_records: tuple[Path, ...] = ()

    def cluster(
        self, live: Live, ref: ClusterRef, request: WorkloadRequest, say: Callable[[str], None]
    ) -> tuple[ClusterMeta, list[str]]:
        from xcli.workload.spec import cluster_meta_from_dict

        path = self.cluster_metadata
        if path is not None:
            where = f"--cluster-metadata {path}"
            return cluster_meta_from_dict(_load(path), ref.name, source=where), []
        return _meta_from_flags(ref, request), []

    def storages(
        self, api: ApiOf, namespace: str, names: Sequence[str]
    ) -> tuple[list[Storage], tuple[str, ...]]:
        from xcli.workload.storage_records import from_files

        records = from_files(self.storage_records)
        if not (names or self.storage_records):  # the plain plans stay as they were
            return records, ()
        notes = [
            "storage records from --storage-record files only (no cluster read): "
            "auto-mount storages of the cluster are not shown"
        ]
        missing = self.unread(names, records)
        if missing:
            notes.append(
                f"a dry-run reads no cluster: storage {', '.join(missing)} is mounted from its "
                "record, which the live run reads first (${storage-NAME.*} below); the pod "
                "settings its type adds (gcsfuse: the sidecar annotations) come with it; "
                f"--storage-record FILE plans it exactly (kubectl get configmap "
                f"xcli-storage-{missing[0]} -o yaml > FILE)"
            )
        return records, tuple(notes)

    def unread(self, names: Sequence[str], records: Sequence[Storage]) -> tuple[str, ...]:
        given = {r.name for r in records}
        return tuple(n for n in names if n not in given)

    def workload_state(self, read: Callable[[], str]) -> str:
        return ""

    def selected(self, read: Callable[[], list[str]]) -> list[str] | None:
        return None


LIVE_FACTS = LiveFacts()


def cluster_live(deps: Deps) -> Live:
    """Clusters reached through their provider's ClusterAccess (the registry's, which tests
    replace with an in-memory API), with the run's clocks and sleep."""
    from xcli.app.where import cluster_access
    from xcli.workload.jobset.live import Live

    registry, timing = deps.registry, deps.timing
    return Live(
        lambda ref: cluster_access(registry, ref).kube_api(ref),
        now=timing.now,
        clock=timing.clock,
        sleep=timing.sleep,
    )


def _meta_from_flags(ref: ClusterRef, request: WorkloadRequest) -> ClusterMeta:
    from xcli.catalog import lookup
    from xcli.spec import Capacity
    from xcli.workload.spec import ClusterMeta

    accelerator = request.accelerator
    if not accelerator:
        raise UserError(
            "a dry-run without a cluster needs the accelerator",
            hint="pass --tpu-type/--device-type and --num-slices (or --num-nodes), "
            "or --cluster-metadata FILE",
        )
    accel = lookup(accelerator)
    # --num-slices and --num-nodes default to 1, as XPK's do (src/xpk/parser/workload.py:129-134
    # at 367c838253be), so the talk's `workload create --tpu-type v6e-256 ... --dry-run` and a
    # GPU `--device-type h100-80gb-8 ... --dry-run` plan without a cluster.
    return ClusterMeta(
        name=ref.name,
        provider=ref.provider,
        accelerator=accel,
        capacity=Capacity("flex-start" if request.flex_start else "on-demand"),
        num_slices=request.num_slices or 1,
        num_nodes=request.num_nodes or 1,
        source="flags",
    )


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
