"""The one shape every provider has (gke, queued-resource, local).

The CLI never branches on the provider: it looks the provider up by name and calls these.
Planning methods are pure (no network, no credentials); everything that touches the outside
world goes through the gateways a provider builds in `handlers` and `inspect`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

from xcli.plan.cluster import ClusterRef, ClusterSummary, SshAccess, WaitLogin, Worker
from xcli.plan.contract import Handler
from xcli.plan.model import Plan
from xcli.spec import ClusterSpec
from xcli.terraform.support import TerraformSupport

if TYPE_CHECKING:
    from xcli.gateways.kube.api import KubeApi


class Provider(Protocol):
    name: str
    # `cluster create --terraform DIR`: the provider's modules and steps, or None
    # (Capabilities.terraform says the same without importing the provider).
    terraform: TerraformSupport | None

    def plan_create(self, spec: ClusterSpec) -> Plan: ...

    def plan_delete(self, ref: ClusterRef) -> Plan: ...

    def handlers(self, ref: ClusterRef) -> Mapping[str, Handler]:
        """Live handlers for the step kinds this provider's plans contain."""
        ...

    def list_clusters(self, project: str, zone: str | None) -> list[ClusterSummary]: ...

    def describe(self, ref: ClusterRef) -> Mapping[str, Any]: ...


class VmAccess(Provider, Protocol):
    """Providers whose workers are VMs reachable over SSH (Capabilities.ssh)."""

    def workers(self, ref: ClusterRef) -> list[Worker]:
        """Every VM of every slice, slice by slice, worker 0 first (VM-style providers)."""
        ...

    def ssh_access(self, ref: ClusterRef) -> SshAccess:
        """Which key, known_hosts file and user reach this cluster's workers."""
        ...


class ClusterAccess(Protocol):
    """Providers whose clusters run Kubernetes (Capabilities.kubernetes): the one way to reach a
    cluster's Kubernetes API. Team, adapt, preload-image, storage and workload use cases reach
    clusters through it, found with `Registry.cluster_access`.

    Unlike VmAccess it is not a whole Provider: reaching a cluster is one method, so a test hands
    an in-memory API server in as this alone (`Registry.with_cluster_access`), while planning
    and the provider's own handlers stay the real ones. Clocks and sleeps are not part of it
    (gateways/backoff.py:Timing): a connection does not tell time.
    """

    def kube_api(self, ref: ClusterRef) -> KubeApi:
        """The cluster's Kubernetes API; one connection per cluster for this object's life."""
        ...


class UserKeys(Provider, Protocol):
    """Providers that authorize a key the user names on their VMs (`--ssh-key` of `cluster
    create` and `cluster wait`; Capabilities.user_keys)."""

    def check_user_key(self, text: str) -> None:
        """Refuse, before anything is sent, a file that is not an SSH private key."""
        ...


class Observer(Provider, Protocol):
    """Providers that reconcile (Capabilities.observer): read what exists before a live plan.

    The CLI calls it only for live runs and passes the result to plan_create / plan_delete as
    `observed=`; a dry-run passes nothing and the provider plans against "nothing exists".
    """

    def observe(self, ref: ClusterRef, purpose: str) -> object:
        """`purpose` is "create" or "delete": what the observation is for."""
        ...

    def plan_create(self, spec: ClusterSpec, observed: object | None = None) -> Plan: ...

    def plan_delete(self, ref: ClusterRef, observed: object | None = None) -> Plan: ...


class Waiter(Provider, Protocol):
    """Providers with `xcli cluster wait` (Capabilities.wait)."""

    def plan_wait(self, ref: ClusterRef, timeout_seconds: int, login: WaitLogin) -> Plan:
        """Wait until the cluster is ready, then set up SSH access as `login` says."""
        ...


class LiveChecker(Provider, Protocol):
    """Providers that check, before a live create runs, what only a live run can check
    (Capabilities.live_checks); a dry-run skips it."""

    def check_create(self, spec: ClusterSpec) -> None: ...
