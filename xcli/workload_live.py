"""The live side of `xcli workload create` on GKE: what must be read from, and sent to, a cluster.

The CLI calls exactly these three functions when it is not dry-running; everything else about a
workload is pure and lives in xcli/plan/workload.py and xcli/plan/jobset.py.

They need the Kubernetes gateway (xcli/gateways/kube.py, server-side apply / get / list /
delete on lightkube), which this build does not include yet. Until it is merged they refuse with
a clear message instead of pretending: the dry-run and --output-manifest-file work without them.
"""

from __future__ import annotations

from collections.abc import Mapping

from xcli.errors import XcliError
from xcli.execute.result import Handler
from xcli.providers.base import ClusterRef
from xcli.workload_spec import ClusterMeta

METADATA_CONFIGMAP = "xcli-cluster-metadata"  # namespace default, written by `cluster create`


def _unavailable(what: str) -> XcliError:
    return XcliError(
        f"{what} needs the Kubernetes gateway, which this build of xcli does not include yet",
        hint="use --dry-run (with --tpu-type/--device-type and --num-slices, or "
        "--cluster-metadata FILE) and --output-manifest-file to render the JobSet",
    )


def read_cluster(ref: ClusterRef) -> tuple[ClusterMeta, list[str]]:
    """The cluster's metadata (ConfigMap `xcli-cluster-metadata`, read through
    workload_spec.cluster_meta_from_dict) and the names of the JobSets already in its
    namespace."""
    raise _unavailable(f"reading cluster {ref.name}")


def handlers(ref: ClusterRef) -> Mapping[str, Handler]:
    """Live handlers for the workload plan's step kinds: `k8s_apply` (server-side apply,
    fieldManager xcli, force) and `k8s_delete` (foreground delete, then wait until gone)."""
    raise _unavailable(f"submitting to cluster {ref.name}")
