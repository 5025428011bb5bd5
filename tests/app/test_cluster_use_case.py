"""app/cluster.py with injected dependencies: the order of asking, reading and running."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tests.app.test_ssh_use_case import Where, World
from xcli import cluster_index
from xcli.app.cluster import DeleteRequest, delete
from xcli.app.deps import Deps
from xcli.app.record import DRY, LIVE
from xcli.errors import UserError
from xcli.plan.cluster import ClusterRef
from xcli.plan.model import Plan
from xcli.providers import DEFAULT

SEEN: list[str] = []


class Observed:
    """A provider with an observer: says what it was asked to read and plan."""

    name = "gke"
    terraform = None

    def observe(self, ref: ClusterRef, verb: str) -> str:
        SEEN.append(f"observe {ref.name} for {verb}")
        return "found"

    def plan_delete(self, ref: ClusterRef, observed: object | None = None) -> Plan:
        SEEN.append(f"plan delete {ref.name} ({observed})")
        return Plan(title=f"delete {ref.name}", steps=())

    def handlers(self, ref: ClusterRef) -> dict[str, Any]:
        return {}


def deps(asked: list[str], answer: bool, ran: list[Plan], *, dry: bool = False) -> Deps:
    def confirm(question: str) -> None:
        asked.append(question)
        if not answer:
            raise UserError(f"{question} needs confirmation", hint="pass --yes to confirm")

    return replace(
        World().deps(Path("logs")),
        registry=DEFAULT.with_target("gke", f"{__name__}:Observed"),
        confirm=confirm,
        run_plan=lambda plan, handlers: ran.append(plan),
        record=DRY if dry else LIVE,  # what the CLI hands for --dry-run, or for a live run
    )


def test_delete_asks_before_reading_anything_then_observes_runs_and_forgets() -> None:
    SEEN.clear()
    where = Where(project="p-test1", zone="us-east5-b")
    request = DeleteRequest("demo", "gke", None, where, dry_run=False)
    asked: list[str] = []
    ran: list[Plan] = []
    with pytest.raises(UserError):
        delete(request, deps(asked, False, ran))
    assert asked == ["Delete cluster demo (gke) and everything xcli created for it?"]
    assert SEEN == [] and ran == []  # a "no" costs no read
    cluster_index.record("demo", "gke")
    delete(request, deps(asked, True, ran))
    assert SEEN == ["observe demo for delete", "plan delete demo (found)"]
    assert [p.title for p in ran] == ["delete demo"]
    assert cluster_index.provider_for("demo", None, "none", ["gke", "none"]) == "none"
    SEEN.clear()
    dry = DeleteRequest("demo", "gke", None, where, dry_run=True)
    delete(dry, deps(asked, True, ran, dry=True))
    assert SEEN == ["plan delete demo (None)"]  # the dry-run reads nothing
