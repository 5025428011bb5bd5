"""What every kind of workload does, behind one interface.

Two kinds exist: a JobSet queued by Kueue on a GKE cluster (xcli/workload/jobset/), and the
command on every VM of a VM-style cluster, queued resources or local (xcli/workload/vm/). The
CLI resolves the cluster's provider, asks `backend_for(provider, vm_workloads)`
(xcli/workload/backends.py; `vm_workloads` is the provider's registry capability) for its
backend, and calls the same operation whatever the kind: it never branches on the provider.
What differs between kinds (the states a workload goes through, whether an image is required,
whether extra restart exit codes apply, whether a delete can be previewed) is a property of the
backend.

A backend talks to the person at the terminal only through a `Session`: the command line's
location, output format and dry-run choice, and the ways to print, ask and run a plan. The
CLI implements it (xcli/cli/workload_session.py); a backend never imports click.

Goodput (the share of a run's time spent making progress, xcli/workload/goodput/) is one more
read operation, `goodput(session, cluster, name)`, that each backend answers from what it
already keeps: a JobSet's Kueue Workload, restarts, pods and timestamped pod logs; a VM run's
attempts and timestamped goodput marks in its record (workload/vm/runs.py). Where later issues
plug in. Storage (buckets or file shares mounted in
every worker) becomes a field of the create request that each backend turns into its own shape:
volumes in the JobSet's pod template, a mount step in the VM worker script. A third kind of
workload (Slurm, plain GCE VMs) is a third implementation and one line in backend_for.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:  # typing only: `xcli workload --help` imports this package
    from xcli.plan.cluster import ClusterRef
    from xcli.plan.contract import Handler
    from xcli.plan.model import Plan
    from xcli.providers.base import VmAccess


class Session(Protocol):
    """The command line, as a workload backend sees it."""

    @property
    def output(self) -> str: ...  # text, json or yaml

    @property
    def dry_run(self) -> bool: ...

    @property
    def namespace(self) -> str: ...  # --namespace: "default", or a team's (xcli team create)

    @property
    def project(self) -> str: ...  # resolved on first use (flag, env, config file, gcloud)

    @property
    def zone(self) -> str: ...

    def cluster_ref(self, name: str, provider: str) -> ClusterRef:
        """The cluster, named and located as `xcli cluster ...` does for that provider."""
        ...

    def vm_access(self, provider: str) -> tuple[VmAccess, bool]:
        """A VM-style provider's workers and SSH access, and whether its VMs are in a cloud
        (from the provider registry this run uses)."""
        ...

    def say(self, text: str, *, err: bool = False) -> None: ...

    def table(self, headers: Sequence[str], rows: Sequence[Sequence[str]]) -> None: ...

    def emit(self, data: Any) -> None:
        """One JSON or YAML document (--output json|yaml)."""
        ...

    def emit_record(self, record: Mapping[str, Any]) -> None:
        """One record of a stream (JSON lines)."""
        ...

    def confirm(self, question: str) -> None:
        """Ask, unless --yes; raises when the answer is no."""
        ...

    def run_plan(self, plan: Plan, handlers: Callable[[], Mapping[str, Handler]]) -> int:
        """Print the plan (dry-run) or run it with these live handlers; the exit code."""
        ...


class WorkloadBackend(Protocol):
    """One kind of workload: how it is created, read, waited for and deleted."""

    kind: str  # "jobset" or "vm", for messages and documentation
    states: tuple[str, ...]  # what `workload list --state` can select on this kind
    needs_image: bool  # False: without --docker-image the command runs as a plain process
    extra_restart_codes: bool  # whether --restart-on-exit-codes means anything here
    previews_delete: bool  # whether `workload delete NAME --dry-run` can print a plan
    namespaces: bool  # whether --namespace other than "default" means anything here

    def create(self, session: Session, flags: Mapping[str, Any]) -> int:
        """Plan the workload from the create flags (checked by the CLI) and run or print it."""
        ...

    def list(self, session: Session, cluster: str, state: str | None) -> int: ...

    def status(self, session: Session, cluster: str, name: str) -> int: ...

    def goodput(self, session: Session, cluster: str, name: str) -> int:
        """Scheduling, runtime and program goodput, badput by cause, the interruptions."""
        ...

    def logs(
        self,
        session: Session,
        cluster: str,
        name: str,
        selection: tuple[str, str],  # (--worker, --slice), each an index or "all"
        follow: bool,
        since: str | None,
    ) -> int: ...

    def wait(
        self, session: Session, cluster: str, name: str, timeout: str | None, seconds: int | None
    ) -> int:
        """0 succeeded, 1 failed, 124 (as timeout(1)) when `seconds` passed first."""
        ...

    def delete(
        self,
        session: Session,
        cluster: str,
        name: str | None,
        state: str | None,
        older_than: tuple[str, int] | None,  # (as typed, in seconds)
    ) -> int:
        """Delete one named workload, or every one in `state` (older than given)."""
        ...
