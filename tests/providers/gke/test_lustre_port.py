"""`cluster create --lustre-legacy-port` (XPK's --enable-legacy-lustre-port): the Lustre CSI
driver is on from the start, with the legacy port, in the field container.v1 names."""

from __future__ import annotations

from dataclasses import replace

from tests.plan.gke_cases import CASES
from tests.support.discovery import check_request
from xcli.providers.gke.options import GkeOptions
from xcli.providers.gke.planner import plan_create

SPEC = CASES["v6e-256-x2-spot"][1]


def _cluster_body(legacy: bool) -> dict[str, object]:
    plan = plan_create(replace(SPEC, options=GkeOptions(lustre_legacy_port=legacy)))
    step = next(s for s in plan.steps if s.id == "cluster")
    check_request(step.api, "POST", str(step.url), step.body)  # type: ignore[attr-defined]
    return step.body["cluster"]  # type: ignore[attr-defined,no-any-return]


def test_the_legacy_port_turns_the_driver_on_with_port_6988() -> None:
    addons = _cluster_body(True)["addonsConfig"]
    assert addons == {"lustreCsiDriverConfig": {"enabled": True, "enableLegacyLustrePort": True}}
    assert "addonsConfig" not in _cluster_body(False)  # storage attach turns the driver on
