"""The provider registry as the CLI sees it: click choices, the registry in use, cluster refs.

Choices are built from the default registry's static entries (xcli/providers/__init__.py), so
building them imports no provider module. A test may run the CLI with another registry
(`xcli.cli.main.main(argv, providers=...)`); commands find it on click's context.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from xcli.providers import DEFAULT, Registry

if TYPE_CHECKING:
    from xcli.cli.common import Common
    from xcli.plan.cluster import ClusterRef


def choice(**wanted: bool) -> click.Choice[str]:
    """`--provider` values: every registered provider, or those with the `wanted` capabilities."""
    return click.Choice(DEFAULT.names(**wanted))


def registry() -> Registry:
    """The registry this run uses: the one main() was given, else the default."""
    from xcli.cli.deps import current

    found = current().providers
    return found if found is not None else DEFAULT


def location(provider: str, common: Common) -> tuple[str, str]:
    """Project and zone; a provider without a cloud (local) needs neither."""
    from xcli.app.where import location as locate

    return locate(registry(), provider, common)


def ref_for(name: str, provider: str, common: Common) -> ClusterRef:
    """The checked reference to cluster `name` of `provider`, located by the common options."""
    from xcli.app.where import ref_for as checked_ref

    return checked_ref(registry(), name, provider, common)
