"""A provider's ClusterAccess over an in-memory Kubernetes API server (tests/support/fakekube.py).

The one seam through which tests put a fake cluster under a command: the provider registry,
`DEFAULT.with_cluster_access("gke", InMemoryAccess(fake))`, handed to the CLI as
`Dependencies(providers=...)` (or `main(argv, providers=...)`). Planning and the provider's own
handlers stay the real ones.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tests.support.fakekube import FakeKube
from xcli.gateways.kube.api import KubeApi
from xcli.plan.cluster import ClusterRef
from xcli.providers import DEFAULT, Registry


@dataclass
class InMemoryAccess:
    """Every cluster's API is `fake`, reached through the real KubeApi over its transport."""

    fake: FakeKube
    refs: list[ClusterRef] = field(default_factory=list)  # the clusters asked for, in order

    def kube_api(self, ref: ClusterRef) -> KubeApi:
        self.refs.append(ref)
        return KubeApi("203.0.113.9", None, lambda: "tok", transport=self.fake.transport())


def registry_over(fake: FakeKube, registry: Registry = DEFAULT) -> tuple[Registry, InMemoryAccess]:
    """`registry` with GKE clusters reached in `fake`, and the access (to see what it was asked)."""
    access = InMemoryAccess(fake)
    return registry.with_cluster_access("gke", access), access
