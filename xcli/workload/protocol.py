"""What every kind of workload does, behind one pure interface, and the data it returns.

Two kinds exist: a JobSet queued by Kueue on a GKE cluster (xcli/workload/jobset/), and the
command on every VM of a VM-style cluster, queued resources or local (xcli/workload/vm/). They
are registered by name in xcli/workload/kinds.py; a provider's registry entry says which kinds
it runs (`Capabilities.workloads`), so a third kind (Pathways, Slurm) is a folder and one
registry line.

A kind takes a frozen `WorkloadRequest` (xcli/workload/request.py) or a name, and a `Context`
(where the cluster is, the namespace, what a live run reads first, how to say progress). It
plans create and delete, and returns rows, reports, outcomes and log lines as data. It never
sees a flag, an output format or the dry-run choice, and never prints: the use cases of
xcli/app/workload.py run what it plans, and the CLI renders what it returns, once for every
kind (xcli/cli/workload_view.py).

What a live run reads before it plans (the cluster's metadata ConfigMap, the storage records)
comes through `Context.facts` (xcli/workload/facts.py), which the CLI hands in as live or as
a dry reader of `--cluster-metadata` and `--storage-record` files (xcli/app/workload_facts.py):
the pattern xcli/app/record.py uses for clusters.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:  # typing only: `xcli workload --help` imports this package
    from xcli.plan.cluster import ClusterRef
    from xcli.plan.model import Plan
    from xcli.providers.base import VmAccess
    from xcli.workload.facts import Facts
    from xcli.workload.request import WorkloadRequest
    from xcli.workload.stragglers.marks import Arrivals

# Builds the live handlers of a plan's step kinds, only when a live run needs them.
Handlers = Callable[[], Mapping[str, Any]]


class Location(Protocol):
    """The cluster's project and zone, resolved on first use (flag, env, config, gcloud)."""

    @property
    def project(self) -> str: ...

    @property
    def zone(self) -> str: ...


@dataclass(frozen=True)
class Context:
    """What a kind is handed for one command."""

    location: Location
    provider: str  # the cluster's provider, for the commands a hint repeats
    say: Callable[[str], None]  # a progress line for the user (stderr)
    facts: Facts  # what a live run reads first; a dry-run's reader reads files and flags
    # The cluster, named (checked) and located as `xcli cluster ...` does for this provider.
    cluster_ref: Callable[[str], ClusterRef]
    namespace: str = "default"  # --namespace: "default", or a team's (xcli team create)
    # A VM-style provider's workers and SSH access, and whether its VMs are in a cloud.
    vm_access: Callable[[], tuple[VmAccess, bool]] | None = None

    @property
    def project(self) -> str:
        return self.location.project

    @property
    def zone(self) -> str:
        return self.location.zone


@dataclass(frozen=True)
class Table:
    headers: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class Lazy:
    """A text line that costs a read (a status's goodput line): made only when the text form
    is shown, so `--output json` reads no more than it did."""

    make: Callable[[], str]


Block = str | Table | Lazy


@dataclass(frozen=True)
class Report:
    """A read's result: `data` for --output json|yaml, `text` (lines and tables, in order) for
    the terminal."""

    data: Any
    text: tuple[Block, ...] = ()


@dataclass(frozen=True)
class Listing:
    """`workload list`: one record per workload (JSON), the table, and the stderr line when
    there is none."""

    records: list[dict[str, Any]]
    table: Table
    empty: str


@dataclass(frozen=True)
class LogLine:
    """One line of a worker's log, or (note=True) a line xcli says about that worker. `note`
    None: the kind's JSON records carry no note field (VM runs)."""

    prefix: str
    text: str
    note: bool | None = False
    # when the line was logged, seconds since the epoch (asked for with LogView; None: not
    # asked, or not known): the kubelet's time on GKE, xcli's read time on VMs
    at: float | None = None


@dataclass(frozen=True)
class LogView:
    """How `workload logs` wants its lines: with their times (`--timestamps`), and the lines
    of all workers in one time-ordered stream (`--merge`) instead of worker by worker."""

    timestamps: bool = False
    merge: bool = False

    @property
    def timed(self) -> bool:
        return self.timestamps or self.merge


WORKER_BY_WORKER = LogView()  # the default: each worker's lines together, no times


@dataclass(frozen=True)
class Outcome:
    """`workload wait`: the exit code (0 succeeded, 1 failed, 124 timeout), the JSON document,
    and the line said on stderr in text form (None: nothing more)."""

    code: int
    data: dict[str, Any]
    message: str | None = None


@dataclass(frozen=True)
class Creation:
    """A planned `workload create`: the plan and its live handlers, the manifests
    `--output-manifest-file` writes, and what a live text run says after it."""

    plan: Plan
    handlers: Handlers
    manifests: tuple[dict[str, Any], ...] = ()
    follow: str | None = None


@dataclass(frozen=True)
class Selection:
    """Which workloads `workload delete` without a name deletes: every xcli workload of the
    namespace (XPK's `workload delete` without --workload), narrowed by state (`finished`:
    succeeded or failed), age and a part of the name (XPK's --filter-by-job)."""

    state: str | None = None
    older_than: tuple[str, int] | None = None  # (as typed, in seconds)
    name_contains: str = ""

    def words(self) -> str:
        """The selection as a phrase: `succeeded workloads older than 7d whose name holds x`."""
        noun = f"{self.state} workloads" if self.state else "workloads"
        age = f" older than {self.older_than[0]}" if self.older_than else ""
        part = f" whose name holds {self.name_contains!r}" if self.name_contains else ""
        return f"{noun}{age}{part}"


@dataclass(frozen=True)
class Deletion:
    """A planned `workload delete`: what is said first, the question (None: nothing to
    delete), and either a plan to run or `finish` (VM runs: stop and forget each one, saying
    so), run once the answer is yes."""

    notes: tuple[str, ...] = ()
    question: str | None = None
    plan: Plan | None = None
    handlers: Handlers = dict
    finish: Callable[[Callable[[str], None]], None] | None = field(default=None)


class WorkloadKind(Protocol):
    """One kind of workload: how it is planned, read, waited for and deleted."""

    def plan_create(self, ctx: Context, request: WorkloadRequest) -> Creation:
        """Plan the workload (flags checked by the CLI first)."""
        ...

    def list(self, ctx: Context, cluster: str, state: str | None) -> Listing: ...

    def status(self, ctx: Context, cluster: str, name: str) -> Report: ...

    def goodput(self, ctx: Context, cluster: str, name: str) -> Report:
        """Scheduling, runtime and program goodput, badput by cause, the interruptions."""
        ...

    def arrivals(
        self, ctx: Context, cluster: str, name: str, since_seconds: int | None
    ) -> Arrivals:
        """Every worker's arrival marks (`XCLI_GOODPUT arrive=<n>`), timestamped where read;
        `since_seconds`: only lines read that recently (None: all)."""
        ...

    def logs(
        self,
        ctx: Context,
        cluster: str,
        name: str,
        selection: tuple[str, str],  # (--worker, --slice), each an index or "all"
        follow: bool,
        since: str | None,
        view: LogView = WORKER_BY_WORKER,
    ) -> Iterator[LogLine]: ...

    def wait(
        self, ctx: Context, cluster: str, name: str, timeout: str | None, seconds: int | None
    ) -> Outcome:
        """Progress through ctx.say; 0 succeeded, 1 failed, 124 when `seconds` passed first."""
        ...

    def plan_delete(
        self,
        ctx: Context,
        cluster: str,
        name: str | None,
        selection: Selection,
    ) -> Deletion:
        """Delete one named workload, or every one the selection keeps."""
        ...
