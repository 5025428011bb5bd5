"""`cluster create --ml-diagnostics` (XPK's --managed-mldiagnostics): the container.v1 field,
the IAM step, the GKE version it needs."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from tests.plan.gke_cases import CASES
from tests.support.discovery import check_request
from xcli.errors import UserError
from xcli.plan.ml_diagnostics import ProjectIamGrant, too_old
from xcli.plan.model import Plan
from xcli.providers.gke.options import GkeOptions
from xcli.providers.gke.planner import plan_create
from xcli.providers.gke.provider import GkeProvider

SPEC = CASES["v6e-256-x2-spot"][1]


def plan(**options: Any) -> Plan:
    return plan_create(replace(SPEC, options=GkeOptions(**options)))


def test_the_field_the_roles_and_the_note() -> None:
    steps = plan(ml_diagnostics=True).by_id()
    cluster = steps["cluster"]
    check_request(cluster.api, "POST", str(cluster.url), cluster.body)  # type: ignore[attr-defined]
    body = cluster.body["cluster"]  # type: ignore[attr-defined]
    assert body["managedMachineLearningDiagnosticsConfig"] == {"enabled": True}
    grant = steps["ml-diagnostics-iam"]
    assert isinstance(grant, ProjectIamGrant) and grant.after == ()
    assert [n for n in plan(ml_diagnostics=True).notes if "1.35.0-gke.3065000" in n]
    plain = plan().by_id()
    assert "ml-diagnostics-iam" not in plain
    assert "managedMachineLearningDiagnosticsConfig" not in plain["cluster"].body["cluster"]  # type: ignore[attr-defined]


def test_a_gke_version_before_xpks_minimum_is_refused() -> None:
    assert too_old("1.34.1-gke.1829001") and too_old("1.35.0-gke.3064999")
    assert not too_old("1.35.0-gke.3065000") and not too_old("1.36.2-gke.100")
    with pytest.raises(UserError, match=r"needs GKE 1\.35\.0-gke\.3065000 or later"):
        plan(ml_diagnostics=True, gke_version="1.34.1-gke.1829001")
    newer = plan(ml_diagnostics=True, gke_version="1.35.1-gke.1000")
    assert not [n for n in newer.notes if "--ml-diagnostics" in n]


def test_the_provider_runs_the_step() -> None:
    assert ProjectIamGrant.kind in GkeProvider().handlers(None)  # type: ignore[arg-type]
