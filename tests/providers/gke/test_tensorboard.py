"""`cluster create --vertex-tensorboard` (XPK's --create-vertex-tensorboard): the step, XPK's
defaults (us-central1, <cluster>-tb-instance), the metadata entries that wait for it, and the
settings refused without the flag."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from tests.plan.gke_cases import CASES
from tests.support.discovery import check_request
from xcli.errors import UserError
from xcli.plan.gke.incluster import setup_steps
from xcli.plan.model import Plan
from xcli.plan.vertex import EnsureTensorboard
from xcli.providers.gke.bodies import setup_steps as gke_setup
from xcli.providers.gke.options import GkeOptions
from xcli.providers.gke.planner import plan_create
from xcli.providers.gke.provider import GkeProvider

SPEC = CASES["v6e-256-x2-spot"][1]


def plan(**options: Any) -> Plan:
    return plan_create(replace(SPEC, options=GkeOptions(**options)), setup=gke_setup)


def test_xpks_defaults_and_the_metadata_that_waits_for_it() -> None:
    steps = plan(vertex_tensorboard=True).by_id()
    board = steps["tensorboard"]
    assert isinstance(board, EnsureTensorboard)
    assert (board.region, board.display_name) == ("us-central1", "demo-tb-instance")
    assert board.after == ()  # nothing waits for it but the metadata
    assert "tensorboard" not in steps["pool-0"].after
    for request in board.details()["requests"][:2]:  # the list and the create, as printed
        check_request(request["api"], request["method"], request["url"], request.get("body"))
    meta = steps["k8s-metadata"]
    assert "tensorboard" in meta.after
    data = meta.details()["manifest"]["data"]
    assert data["tensorboard_region"] == "us-central1"
    assert data["tensorboard_name"] == "demo-tb-instance"
    assert data["tensorboard_id"] == "${tensorboard.id}"


def test_region_and_name_as_given_and_nothing_without_the_flag() -> None:
    board = plan(vertex_tensorboard=True, tensorboard_region="us-west1", tensorboard_name="tb")
    step = board.by_id()["tensorboard"]
    assert isinstance(step, EnsureTensorboard) and step.region == "us-west1"
    assert "tensorboard" not in plan().by_id()
    assert "tensorboard_name" not in str(setup_steps(SPEC, "c", ()))


@pytest.mark.parametrize("option", ["tensorboard_region", "tensorboard_name"])
def test_a_setting_without_the_flag_is_refused(option: str) -> None:
    with pytest.raises(UserError, match="applies only with --vertex-tensorboard"):
        plan(**{option: "us-west1"})


def test_the_provider_runs_the_step() -> None:
    assert EnsureTensorboard.kind in GkeProvider().handlers(None)  # type: ignore[arg-type]
