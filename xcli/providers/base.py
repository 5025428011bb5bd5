"""The one shape every provider has (gke, queued-resource, local).

The CLI never branches on the provider: it looks the provider up by name and calls these.
Planning methods are pure (no network, no credentials); everything that touches the outside
world goes through the gateways a provider builds in `handlers` and `inspect`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from xcli.execute.result import Handler
from xcli.plan.model import Plan
from xcli.spec import ClusterSpec


@dataclass(frozen=True)
class ClusterRef:
    """Names an existing cluster."""

    name: str
    project: str
    zone: str
    provider: str

    @property
    def region(self) -> str:
        return self.zone.rsplit("-", 1)[0]


@dataclass(frozen=True)
class ClusterSummary:
    """One row of `xcli cluster list`."""

    name: str
    provider: str
    location: str
    accelerator: str
    slices: int
    capacity: str
    status: str
    extra: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Worker:
    """One VM of a slice, reachable over SSH."""

    slice: int
    index: int
    host: str
    port: int = 22
    user: str | None = None
    hostname: str | None = None
    internal_ip: str | None = None
    external_ip: str | None = None
    accelerator: str | None = None  # the slice's accelerator type, when the provider read it

    @property
    def label(self) -> str:
        return f"s{self.slice}/w{self.index}"


@dataclass(frozen=True)
class SshAccess:
    """How the SSH engine authenticates to a cluster's workers and checks their host keys.

    key_file: private key to offer (`ssh -i key_file -o IdentitiesOnly=yes`); None leaves the
    choice to the user's ssh config and agent. known_hosts: the file the workers' host keys are
    pinned in (`-o UserKnownHostsFile=... -o StrictHostKeyChecking=yes`); None means xcli's
    default known_hosts. user: login name (`user@host`); None means the ssh default.
    """

    key_file: Path | None
    known_hosts: Path | None
    user: str | None
    # How long to retry connection failures when the user gives no --retry-for (None: the
    # connect timeout). Set by a provider whose keys may still be reaching fresh VMs.
    retry_for: float | None = None


class Provider(Protocol):
    name: str

    def plan_create(self, spec: ClusterSpec) -> Plan: ...

    def plan_delete(self, ref: ClusterRef) -> Plan: ...

    def handlers(self, ref: ClusterRef) -> Mapping[str, Handler]:
        """Live handlers for the step kinds this provider's plans contain."""
        ...

    def list_clusters(self, project: str, zone: str | None) -> list[ClusterSummary]: ...

    def describe(self, ref: ClusterRef) -> Mapping[str, Any]: ...

    def workers(self, ref: ClusterRef) -> list[Worker]:
        """Every VM of every slice, slice by slice, worker 0 first (VM-style providers)."""
        ...

    def ssh_access(self, ref: ClusterRef) -> SshAccess:
        """Which key, known_hosts file and user reach this cluster's workers."""
        ...


class Observer(Protocol):
    """Optional, for providers that reconcile: read what exists before a live plan is made.

    The CLI calls it only for live runs and passes the result to plan_create / plan_delete as
    `observed=`; a dry-run passes nothing and the provider plans against "nothing exists".
    """

    def observe(self, ref: ClusterRef, purpose: str) -> object:
        """`purpose` is "create" or "delete": what the observation is for."""
