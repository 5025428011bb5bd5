"""The one typed registry of providers: name -> where its class lives, its help line and what it
can do. Adding a provider is its folder under providers/ plus one line in REGISTRY.

The entries are static data on purpose. Click builds its choices (`--provider`, the providers
`xcli ssh` accepts) when a command module is imported, and `xcli --help` must stay as cheap as
click itself: reading a capability from the provider class would import the provider, its
planners and their templates just to print help. So the capabilities live here, next to the
module path, and the class is imported only when a command runs. tests/providers/
test_registry.py checks that each class implements exactly the optional protocols
(providers/base.py) its capabilities promise, so the two cannot drift apart silently.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, cast

from xcli.errors import UserError

if TYPE_CHECKING:
    from xcli.providers.base import (
        ClusterAccess,
        LiveChecker,
        Observer,
        Provider,
        UserKeys,
        VmAccess,
        Waiter,
    )
    from xcli.spec import ProviderOptions


@dataclass(frozen=True)
class Capabilities:
    """What a provider can do beyond the verbs every provider has (providers/base.Provider)."""

    cloud: bool = True  # needs a Google Cloud project and zone (local needs neither)
    # The kinds of workload its clusters run (xcli/workload/kinds.py), the first by default:
    # "jobset" (queued by Kueue), "vm" (the command on every VM), "pathways" (Pathways JobSets).
    workloads: tuple[str, ...] = ("jobset",)
    # How its VMs mount an attached storage (vm workloads): "mount" (Cloud TPU VMs mount the
    # storage types that can be, xcli/plan/storage_types: buckets) or "folder" (the local
    # provider binds a folder of this machine).
    vm_storage: str | None = None
    # Without --docker-image a workload runs as a plain process on each worker (local).
    plain_process: bool = False
    ssh: bool = False  # its workers are reachable over SSH (`xcli ssh`/`scp`): VmAccess
    wait: bool = False  # `xcli cluster wait` (e.g. after `create --async`): Waiter
    terraform: bool = False  # `cluster create --terraform DIR` writes a Terraform folder
    observer: bool = False  # reconciles: reads what exists before a live plan: Observer
    live_checks: bool = False  # checks only a live run can make, before it starts: LiveChecker
    kubernetes: bool = False  # its clusters run Kubernetes, reached through ClusterAccess
    user_keys: bool = False  # authorizes a key the user names (--ssh-key) on its VMs: UserKeys
    # Its TPU capacity is the Cloud TPU API's (queued resources): that API says which zones
    # offer a type, and its quota is not a Compute Engine regional one (`xcli doctor`).
    tpu_api: bool = False

    @property
    def vm_workloads(self) -> bool:
        """Runs workloads as a command on every VM (records kept on this machine)."""
        return "vm" in self.workloads


@dataclass(frozen=True)
class ProviderEntry:
    target: str  # "module:attribute" of the provider class (or factory), imported on use
    help: str  # one line for `xcli cluster --help`
    capabilities: Capabilities
    # "module:function" of its options builder (providers/<name>/options.py): the provider's
    # flag values, by click's names, in; its frozen ProviderOptions subclass out
    options: str = ""


REGISTRY: dict[str, ProviderEntry] = {
    "gke": ProviderEntry(
        "xcli.providers.gke.standard:standard",
        "a GKE cluster with one TPU node pool per slice (or a GPU pool), JobSet and Kueue "
        "installed (default)",
        Capabilities(
            workloads=("jobset", "pathways"),
            terraform=True,
            observer=True,
            kubernetes=True,
        ),
        "xcli.providers.gke.options:gke_options",
    ),
    "queued-resource": ProviderEntry(
        "xcli.providers.queued_resource.provider:QueuedResourceProvider",
        "Cloud TPU queued resources, TPU VMs without Kubernetes",
        Capabilities(
            tpu_api=True,
            workloads=("vm",),
            vm_storage="mount",
            ssh=True,
            wait=True,
            terraform=True,
            user_keys=True,
        ),
        "xcli.providers.queued_resource.options:create_options",
    ),
    "local": ProviderEntry(
        "xcli.providers.local.provider:LocalProvider",
        "an emulated slice on this machine, no cloud account needed",
        Capabilities(
            cloud=False,
            workloads=("vm",),
            vm_storage="folder",
            plain_process=True,
            ssh=True,
            live_checks=True,
        ),
        "xcli.providers.local.options:local_options",
    ),
}


class Registry:
    """Looks providers up by name. The CLI uses the default one (`registry()`); tests build
    their own (`with_target`, `with_cluster_access`) and hand it to
    `xcli.cli.main.main(argv, providers=...)`: the one seam through which a test puts an
    in-memory Kubernetes API under every command that reaches a cluster."""

    def __init__(
        self,
        entries: Mapping[str, ProviderEntry],
        access: Mapping[str, ClusterAccess] | None = None,
    ) -> None:
        self._entries = dict(entries)
        self._access = dict(access or {})  # name -> the ClusterAccess used instead of the class

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def names(self, **wanted: bool) -> list[str]:
        """Provider names, in registry order, whose capabilities match every `wanted` flag."""
        return [
            name
            for name, entry in self._entries.items()
            if all(getattr(entry.capabilities, key) == value for key, value in wanted.items())
        ]

    def default(self, **wanted: bool) -> str:
        """The first provider (with the `wanted` capabilities): the one a command assumes for a
        cluster this machine has no record of (`--provider` defaults to it)."""
        found = self.names(**wanted)
        if not found:
            raise UserError("no provider can do this", hint="providers: " + ", ".join(self))
        return found[0]

    def capabilities(self, name: str) -> Capabilities:
        return self._entry(name).capabilities

    def help(self, name: str) -> str:
        return self._entry(name).help

    def with_target(self, name: str, target: str) -> Registry:
        """The same registry with `name` bound to another class (a test double)."""
        entries = dict(self._entries)
        entries[name] = replace(self._entry(name), target=target)
        return Registry(entries, self._access)

    def with_cluster_access(self, name: str, access: ClusterAccess) -> Registry:
        """The same registry with `name`'s clusters reached through `access` (a test double:
        an in-memory API server); planning and the provider's handlers stay the class's."""
        if not self.capabilities(name).kubernetes:
            raise ValueError(f"provider {name} has no Kubernetes clusters to reach")
        return Registry(self._entries, {**self._access, name: access})

    def get(self, name: str) -> Provider:
        module, _, attr = self._entry(name).target.partition(":")
        try:
            cls = getattr(importlib.import_module(module), attr)
        except ModuleNotFoundError as exc:
            if exc.name != module:
                raise
            raise UserError(
                f"provider {name!r} is not available in this version of xcli",
                hint="providers available: " + ", ".join(self._available()),
            ) from None
        provider: Provider = cls()
        return provider

    def options(self, name: str, flags: Mapping[str, object]) -> ProviderOptions:
        """The provider's typed options, built once from its flag values (click's names): the
        only place a provider setting is read by name is the builder this calls."""
        target = self._entry(name).options
        if not target:
            from xcli.spec import ProviderOptions

            return ProviderOptions()
        module, _, attr = target.partition(":")
        build: Callable[[Mapping[str, object]], ProviderOptions] = getattr(
            importlib.import_module(module), attr
        )
        return build(flags)

    # Optional behaviour, found from the declared capabilities (never by probing the object).

    def vm_access(self, name: str, provider: Provider) -> VmAccess | None:
        return cast("VmAccess", provider) if self.capabilities(name).ssh else None

    def cluster_access(self, name: str, provider: Provider) -> ClusterAccess | None:
        """How to reach the Kubernetes API of `name`'s clusters (None: they have none)."""
        if not self.capabilities(name).kubernetes:
            return None
        return self._access.get(name) or cast("ClusterAccess", provider)

    def user_keys(self, name: str, provider: Provider) -> UserKeys | None:
        return cast("UserKeys", provider) if self.capabilities(name).user_keys else None

    def waiter(self, name: str, provider: Provider) -> Waiter | None:
        return cast("Waiter", provider) if self.capabilities(name).wait else None

    def observer(self, name: str, provider: Provider) -> Observer | None:
        return cast("Observer", provider) if self.capabilities(name).observer else None

    def live_checker(self, name: str, provider: Provider) -> LiveChecker | None:
        return cast("LiveChecker", provider) if self.capabilities(name).live_checks else None

    def _entry(self, name: str) -> ProviderEntry:
        if name not in self._entries:
            raise UserError(
                f"unknown provider {name!r}", hint="providers: " + ", ".join(self._entries)
            )
        return self._entries[name]

    def _available(self) -> list[str]:
        found = []
        for name, entry in self._entries.items():
            if importlib.util.find_spec(entry.target.partition(":")[0]) is not None:
                found.append(name)
        return found


DEFAULT = Registry(REGISTRY)
