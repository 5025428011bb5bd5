"""Names and shapes shared by plans and providers: which cluster, its workers, how SSH reaches them.

They live in the plan model (not in providers/) so plan builders such as the VM workload plan
can use them without importing a provider.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class WaitLogin:
    """`cluster wait`'s login flags, for providers that set up SSH access after the wait."""

    ssh_key: str | None = None
    ssh_user: str | None = None
    os_login: bool = False


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
    # The provider pins every worker's host key itself, from its source of truth, and re-pins
    # when a worker's address changes: a key it did not pin is refused unless the user asks
    # for accept-new (issue 26: accept-new trusted an unknown key silently).
    pinned: bool = False
