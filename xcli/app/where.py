"""Where a cluster is: project and zone for a provider, and the checked ClusterRef."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from xcli.app.deps import Location
    from xcli.plan.cluster import ClusterRef
    from xcli.providers import Registry
    from xcli.providers.base import ClusterAccess

# GKE's own limit is 40; providers may check tighter limits of their own (derived names)
CLUSTER_NAME_LIMIT = 40


def location(registry: Registry, provider: str, where: Location) -> tuple[str, str]:
    """Project and zone; a provider without a cloud (local) needs neither, and takes the flags
    only as given (they name nothing it uses)."""
    if not registry.capabilities(provider).cloud:
        return where.project_flag or "", where.zone_flag or ""
    return where.project, where.zone


def ref_for(registry: Registry, name: str, provider: str, where: Location) -> ClusterRef:
    """The checked reference to cluster `name` of `provider`, located by `where`."""
    from xcli.plan.cluster import ClusterRef
    from xcli.spec import check_name

    check_name(name, "cluster", CLUSTER_NAME_LIMIT)
    project, zone = location(registry, provider, where)
    return ClusterRef(name=name, project=project, zone=zone, provider=provider)


def cluster_access(registry: Registry, ref: ClusterRef) -> ClusterAccess:
    """How to reach `ref`'s Kubernetes API: its provider's ClusterAccess (the registry's test
    double, if it was given one). A provider without Kubernetes clusters is a user error."""
    from xcli.errors import UserError

    access = registry.cluster_access(ref.provider, registry.get(ref.provider))
    if access is None:
        raise UserError(
            f"cluster {ref.name} is a {ref.provider} cluster: it has no Kubernetes API",
            hint="this command works on clusters of: " + ", ".join(registry.names(kubernetes=True)),
        )
    return access
