"""The CLI's side of the workload interface: a Session over the common options, and the
backend of a provider, built with the gateways the entry point was handed."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import click

from xcli.cli.common import Common, confirm, emit, emit_record, run_plan

if TYPE_CHECKING:
    from xcli.plan.cluster import ClusterRef
    from xcli.plan.contract import Handler
    from xcli.plan.model import Plan
    from xcli.providers.base import VmAccess
    from xcli.workload.protocol import WorkloadBackend


def backend(provider: str) -> WorkloadBackend:
    """`provider`'s workload backend, with the gateways `main(argv, workload_gateways=...)`
    put on the click context (none: the real ones)."""
    from xcli.cli.deps import current
    from xcli.cli.providers import registry
    from xcli.workload.backends import backend_for

    vm = registry().capabilities(provider).vm_workloads
    return backend_for(provider, vm, current().workload_gateways)


@dataclass(frozen=True)
class CliSession:
    """xcli.workload.protocol.Session on click: stdout/stderr, the tables and JSON of every
    command, the confirmation prompt and run_plan."""

    common: Common
    namespace: str = "default"  # --namespace (xcli/cli/workload_ns.py)

    @property
    def output(self) -> str:
        return self.common.output

    @property
    def dry_run(self) -> bool:
        return self.common.dry_run

    @property
    def project(self) -> str:
        return self.common.project

    @property
    def zone(self) -> str:
        return self.common.zone

    def cluster_ref(self, name: str, provider: str) -> ClusterRef:
        from xcli.cli.providers import ref_for

        return ref_for(name, provider, self.common)

    def vm_access(self, provider: str) -> tuple[VmAccess, bool]:
        from xcli.cli.providers import registry
        from xcli.errors import UserError

        providers = registry()
        access = providers.vm_access(provider, providers.get(provider))
        if access is None:
            raise UserError(
                f"the {provider} provider runs workloads as JobSets, not on VMs",
                hint="drop --provider, or name a VM-style cluster",
            )
        return access, providers.capabilities(provider).cloud

    def say(self, text: str, *, err: bool = False) -> None:
        click.echo(text, err=err)

    def table(self, headers: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
        from xcli.cli.table import print_table

        print_table(headers, rows)

    def emit(self, data: Any) -> None:
        emit(self.common.output, data)

    def emit_record(self, record: Mapping[str, Any]) -> None:
        emit_record(self.common.output, record)

    def confirm(self, question: str) -> None:
        confirm(self.common, question)

    def run_plan(self, plan: Plan, handlers: Callable[[], Mapping[str, Handler]]) -> int:
        return run_plan(self.common, plan, handlers)
