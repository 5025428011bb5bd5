"""A local `cluster delete` and a `cluster create` of the same name at once (issue 26 item 11):
the delete takes the cluster's lock, and a create whose cluster was deleted between its steps
stops with one clear error instead of starting on the deleted cluster's leftovers. The steps
run for real, through the provider's own handler, in the order a race would give them."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

import pytest

from xcli.catalog import lookup
from xcli.errors import UserError
from xcli.execute.live import LiveExecutor
from xcli.plan.cluster import ClusterRef
from xcli.plan.contract import NullReporter, StepContext
from xcli.plan.model import Plan
from xcli.plan.steps import LocalAction
from xcli.providers.local.handlers import _locked, handle
from xcli.providers.local.layout import ClusterFiles, read_state
from xcli.providers.local.provider import LocalProvider
from xcli.spec import Capacity, ClusterSpec

REF = ClusterRef("race", "", "", "local")


def _spec() -> ClusterSpec:
    return ClusterSpec(
        name="race", project="", zone="", provider="local", accelerator=lookup("v5litepod-8"),
        capacity=Capacity("on-demand"), num_slices=1,
    )  # fmt: skip


def _step(plan: Plan, step_id: str) -> LocalAction:
    (step,) = [s for s in plan.steps if s.id == step_id]
    assert isinstance(step, LocalAction)
    return step


def _run(step: LocalAction) -> Mapping[str, Any]:
    ctx = StepContext(step, NullReporter(), threading.Event(), {})
    return handle(step, ctx)


def _delete() -> None:
    provider = LocalProvider()
    LiveExecutor(provider.handlers(REF)).run(provider.plan_delete(REF))


def test_delete_waits_for_the_cluster_lock() -> None:
    files = ClusterFiles.of("race")
    _run(_step(LocalProvider().plan_create(_spec()), "keys"))  # the folder and its keys
    done = threading.Event()
    with _locked(files):  # what a create holds while it writes keys or starts the supervisor
        worker = threading.Thread(target=lambda: (_delete(), done.set()), daemon=True)
        worker.start()
        assert not done.wait(1.0), "the delete ran while a create held the cluster's lock"
        assert files.root.is_dir()
    assert done.wait(30)
    assert not files.root.exists()


def test_create_stops_when_its_cluster_was_deleted_between_steps() -> None:
    files = ClusterFiles.of("race")
    plan = LocalProvider().plan_create(_spec())
    _run(_step(plan, "keys"))
    _delete()  # a concurrent delete, between the create's first and second step
    with pytest.raises(UserError) as info:
        _run(_step(plan, "start"))
    assert "deleted while" in info.value.message
    assert "run the create again" in info.value.hint
    assert not files.root.exists(), "the create brought back a deleted cluster's folder"
    assert read_state(files) is None
