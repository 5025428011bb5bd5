"""The CLI's side of the workload interface: a Session over the common options, and the
backend of a provider, built with the gateways the entry point was handed."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import click

from xcli.cli.common import Common, confirm, emit, emit_record, run_plan

if TYPE_CHECKING:
    from xcli.execute.result import Handler
    from xcli.plan.model import Plan
    from xcli.providers.base import ClusterRef
    from xcli.workload.protocol import WorkloadBackend


def backend(provider: str) -> WorkloadBackend:
    """`provider`'s workload backend, with the gateways `main(argv, workload_gateways=...)`
    put on the click context (none: the real ones)."""
    from xcli.workload.backends import WorkloadGateways, backend_for

    ctx = click.get_current_context(silent=True)
    gateways = ctx.find_object(WorkloadGateways) if ctx is not None else None
    return backend_for(provider, gateways)


@dataclass(frozen=True)
class CliSession:
    """xcli.workload.protocol.Session on click: stdout/stderr, the tables and JSON of every
    command, the confirmation prompt and run_plan."""

    common: Common

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
        from xcli.cli.cluster import _ref

        ref: ClusterRef = _ref(name, provider, self.common)
        return ref

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
