"""What a live `workload create` reads before it plans, behind one interface.

A live run reads the cluster's metadata ConfigMap (and the JobSets already there) and the
storage records it keeps; a dry-run reads no cluster and takes them from `--cluster-metadata`,
the accelerator flags and `--storage-record` files instead. The CLI hands one of the two
readers in (xcli/app/workload_facts.py: `LIVE_FACTS`, or `DryFacts` for --dry-run), the way
it hands `app/record.py`'s `LIVE` or `DRY` to the cluster use cases, so no kind asks whether
it is a dry-run.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from xcli.gateways.kube.api import KubeApi
    from xcli.plan.cluster import ClusterRef
    from xcli.plan.storage import Storage
    from xcli.workload.jobset.live import Live
    from xcli.workload.request import WorkloadRequest
    from xcli.workload.spec import ClusterMeta

# The cluster's Kubernetes API, opened only when a live run first needs it.
ApiOf = Callable[[], "KubeApi"]


class Facts(Protocol):
    def cluster(
        self, live: Live, ref: ClusterRef, request: WorkloadRequest, say: Callable[[str], None]
    ) -> tuple[ClusterMeta, list[str]]:
        """The cluster's facts and the names of the workloads already in the namespace."""
        ...

    def storages(
        self, api: ApiOf, namespace: str, names: Sequence[str]
    ) -> tuple[list[Storage], tuple[str, ...]]:
        """The storage records a workload may mount (every one, for the auto-mount ones),
        and notes for the plan."""
        ...

    def unread(self, names: Sequence[str], records: Sequence[Storage]) -> tuple[str, ...]:
        """The named storages whose records were not read (a dry-run without their
        --storage-record files): the plan reads them first (jobset/volumes.py)."""
        ...

    def workload_state(self, read: Callable[[], str]) -> str:
        """` (STATE)` of a workload about to be deleted, as the question names it; `read`
        refuses an unknown name. A dry-run reads nothing: ''."""
        ...

    def selected(self, read: Callable[[], list[str]]) -> list[str] | None:
        """The workloads a `workload delete` selection keeps (`read` lists them). A dry-run
        reads nothing: None, and the plan says what a live run reads."""
        ...
