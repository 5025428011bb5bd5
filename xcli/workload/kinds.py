"""The kinds of workload, registered by name, as the providers are (xcli/providers/__init__.py).

A provider's registry entry names the kinds it runs (`Capabilities.workloads`, the first one
its default), so the CLI and the use cases never compare provider names: `gke` runs `jobset`
(JobSets queued by Kueue), `queued-resource` and `local` run `vm` (the command on every VM).
A new kind (Pathways) is a folder beside jobset/ and vm/ and one entry here. The entries are
static data, so `xcli workload --help` imports no kind; what differs between kinds that the
command line must know before anything is read is a field of the entry.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from xcli.errors import UserError

if TYPE_CHECKING:
    from xcli.providers import Capabilities
    from xcli.workload.backends import KindGateways
    from xcli.workload.protocol import WorkloadKind


class KindFactory(Protocol):
    """Builds a kind for one provider's clusters, with the gateways the use cases built from
    their Deps (KindGateways)."""

    def __call__(
        self, provider: str, capabilities: Capabilities, gateways: KindGateways
    ) -> WorkloadKind: ...


@dataclass(frozen=True)
class KindEntry:
    target: str  # "module:attribute" of the kind's factory, imported on use
    states: tuple[str, ...]  # what `workload list --state` can select on this kind
    needs_image: bool  # False: without --docker-image the command may run as a plain process
    extra_restart_codes: bool  # whether --restart-on-exit-codes means anything here
    previews_delete: bool  # whether `workload delete NAME --dry-run` can print a plan
    namespaces: bool  # whether --namespace other than "default" means anything here
    # whether --output-manifest-file, --cluster-metadata and --storage-record apply (the
    # kind's objects are Kubernetes manifests, and a live run reads the cluster's ConfigMaps)
    manifests: bool
    # whether --hang-after applies: xcli watches the workers' marks itself (VM-style runs);
    # a JobSet has no watcher on this machine (docs/workload.md, Hangs)
    hang_watch: bool = False
    # whether --restart-scope slice applies: the kind's program can go on while one slice's
    # Job restarts (Pathways with --elastic-slices), unlike a plain multislice JobSet
    slice_restarts: bool = False


KINDS: dict[str, KindEntry] = {
    # queued (Kueue has not admitted it), running, succeeded, failed
    "jobset": KindEntry(
        "xcli.workload.jobset.kind:JobSetKind.build",
        states=("queued", "running", "succeeded", "failed"),
        needs_image=True,
        extra_restart_codes=True,
        previews_delete=True,
        namespaces=True,  # --namespace picks the JobSet's namespace (a team's queue)
        manifests=True,
    ),
    # a JobSet too (xcli/workload/pathways/): read, waited for and deleted as the jobset kind's
    "pathways": KindEntry(
        "xcli.workload.pathways.kind:PathwaysKind.build",
        states=("queued", "running", "succeeded", "failed"),
        needs_image=False,  # --headless runs none; a batch workload's check asks for it
        extra_restart_codes=False,  # workers restart by their backoffLimit (--max-slice-restarts)
        previews_delete=True,
        namespaces=True,
        manifests=True,
        slice_restarts=True,
    ),
    # docs/workload.md: starting, running, succeeded, failed, stopped (deleted while
    # running), lost (its driver on this machine is gone)
    "vm": KindEntry(
        "xcli.workload.vm.kind:VmKind.build",
        states=("starting", "running", "succeeded", "failed", "stopped", "lost"),
        needs_image=False,  # a provider with Capabilities.plain_process runs without one
        extra_restart_codes=False,  # every worker failure restarts (up to --max-restarts)
        previews_delete=False,
        # VM workloads are processes on the VMs, not Kubernetes objects: there is no
        # namespace, so --namespace other than "default" is refused for them.
        namespaces=False,
        manifests=False,
        hang_watch=True,
    ),
}


def entry(name: str) -> KindEntry:
    try:
        return KINDS[name]
    except KeyError:
        raise UserError(
            f"no workload kind {name!r} in this version of xcli",
            hint=f"kinds: {', '.join(sorted(KINDS))}",
        ) from None


def kind_name(capabilities: Capabilities) -> str:
    """The kind a provider's clusters run by default (the first it names)."""
    return capabilities.workloads[0]


def build(
    name: str, provider: str, capabilities: Capabilities, gateways: KindGateways
) -> WorkloadKind:
    """Kind `name` for `provider`'s clusters."""
    module, _, attr = entry(name).target.partition(":")
    found: object = importlib.import_module(module)
    for part in attr.split("."):
        found = getattr(found, part)
    factory: KindFactory = found  # type: ignore[assignment]
    return factory(provider, capabilities, gateways)


def all_states() -> tuple[str, ...]:
    """Every state some kind offers (the choices of `--state`), sorted."""
    return tuple(sorted({s for e in KINDS.values() for s in e.states}))
