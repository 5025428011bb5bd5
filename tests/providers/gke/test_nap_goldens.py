"""The six NAP goldens (tests/goldens/gke/*nap*, tests/goldens/workload/*nap*) compared with what
XPK's code makes for the same shape and capacity (tests/data/xpk_nap_facts.json, facts with
file:line at the pinned XPK commit). Differences on purpose are asserted and say why."""

from __future__ import annotations

import copy
import json
import re
from typing import Any

import pytest

from tests.conftest import DATA

GOLDENS = DATA.parent / "goldens"
FACTS = json.loads((DATA / "xpk_nap_facts.json").read_text(encoding="utf-8"))

# the XPK command of each cluster golden (tests/plan/gke_cases.py): family, chips asked
# (scheduling.py:266-269, or --autoprovisioning-max-chips), capacity
CLUSTERS = {
    "v6e-256-x2-nap-spot": ("v6e", "tpu", 256 * 2, "spot"),
    "v6e-256-nap-reservation": (
        "v6e",
        "tpu",
        1024,
        "reservation",
    ),  # --autoprovisioning-max-chips 1024
    "a100-40gb-8-x2-nap-spot": ("a100-40gb-8", "gpu", 1 * 8 * 2, "spot"),
    "a100-40gb-8-x2-nap-reservation": ("a100-40gb-8", "gpu", 1 * 8 * 2, "reservation"),
}
# workload goldens (tests/cli/test_workload_cli.py): topology, capacity, reservation
WORKLOADS = {
    "v6e-16-x4-nap": ("4x4", "reservation", "my-reservation"),
    "v6e-64-x2-nap-spot": ("8x8", "spot", None),
}
# RFC 1123 label values (Kubernetes' validation.IsValidLabelValue)
LABEL_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")


def _load(kind: str, name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((GOLDENS / kind / f"{name}.json").read_text("utf-8"))
    return data


def _xpk_selector(capacity: str, reservation: str | None, cluster_project: str) -> dict[str, str]:
    """capacity.py:178-188 with reservation.py:409-416."""
    if capacity == "spot":
        return {"cloud.google.com/gke-spot": "true"}
    if capacity == "reservation":
        assert reservation is not None
        m = re.fullmatch(r"projects/([^/]+)/reservations/([^/]+)", reservation)
        project, name = (m.group(1), m.group(2)) if m else (cluster_project, reservation)
        path = name if project == cluster_project else f"projects/{project}/reservations/{name}"
        return {"cloud.google.com/reservation-name": path}
    return {}


def cluster_problems(golden: dict[str, Any], family: str, kind: str, chips: int) -> list[str]:
    """What differs from XPK's nap.py/kueue_manager.py for this shape (empty: nothing)."""
    problems = []
    system = FACTS["systems"][family]
    body = golden["plan"][0]["request"]["body"]["cluster"]["autoscaling"]
    limits = {r["resourceType"]: r for r in body["resourceLimits"]}
    accel = system["gke_accelerator"]  # nap.py:235 resource_type=system.gke_accelerator
    if set(limits) != {"cpu", "memory", accel}:
        problems.append(f"resourceTypes {sorted(limits)}, XPK: cpu, memory, {accel}")
    else:
        if int(limits[accel]["minimum"]) != FACTS["accelerator_limit"]["minimum"]:
            problems.append(f"{accel} minimum {limits[accel]['minimum']}, XPK: 0")
        if int(limits[accel]["maximum"]) != chips:
            problems.append(f"{accel} maximum {limits[accel]['maximum']}, XPK: {chips}")
        # on purpose: cpu and memory from the shape (docs/upstream.md), within XPK's bounds
        for name in ("cpu", "memory"):
            lo, hi = FACTS["cpu_memory_limits"][name]
            if not lo <= int(limits[name]["maximum"]) <= hi:
                problems.append(
                    f"{name} maximum {limits[name]['maximum']} outside XPK's {lo}..{hi}"
                )
    (flavor,) = [
        s["manifest"] for s in golden["plan"]
        if isinstance(s.get("manifest"), dict) and s["manifest"].get("kind") == "ResourceFlavor"
    ]  # fmt: skip
    want = {FACTS["accelerator_label"][kind]: accel}  # kueue_manager.py:351-362
    if flavor["spec"].get("nodeLabels") != want:
        problems.append(f"flavor nodeLabels {flavor['spec'].get('nodeLabels')}, XPK: {want}")
    return problems


def workload_problems(
    golden: dict[str, Any], topology: str, capacity: str, reservation: str | None
) -> list[str]:
    """The pods' nodeSelector against XPK's workload.py:151-154 (accelerator label, machine
    label, the NAP capacity selector of capacity.py:178-188)."""
    problems = []
    want = {
        "cloud.google.com/gke-tpu-accelerator": FACTS["systems"]["v6e"]["gke_accelerator"],
        "cloud.google.com/gke-tpu-topology": topology,
        **_xpk_selector(capacity, reservation, "my-project"),
    }
    for job in golden["plan"][0]["manifest"]["spec"]["replicatedJobs"]:
        selector = job["template"]["spec"]["template"]["spec"]["nodeSelector"]
        for key, value in want.items():
            if selector.get(key) != value:
                problems.append(f"nodeSelector {key}={selector.get(key)!r}, XPK: {value!r}")
        # on purpose: xcli adds reservation-affinity: specific (GKE's examples on pods);
        # nothing else beyond XPK's keys
        extra = set(selector) - set(want)
        allowed = {"cloud.google.com/reservation-affinity"} if capacity == "reservation" else set()
        if extra - allowed:
            problems.append(f"nodeSelector keys XPK does not set: {sorted(extra - allowed)}")
        if (
            capacity == "reservation"
            and selector.get("cloud.google.com/reservation-affinity") != "specific"
        ):
            problems.append("reservation-affinity is not specific")
    return problems


@pytest.mark.parametrize("name", sorted(CLUSTERS))
def test_cluster_golden_matches_xpk(name: str) -> None:
    family, kind, chips, _ = CLUSTERS[name]
    assert cluster_problems(_load("gke", name), family, kind, chips) == []


@pytest.mark.parametrize("name", sorted(WORKLOADS))
def test_workload_golden_matches_xpk(name: str) -> None:
    assert workload_problems(_load("workload", name), *WORKLOADS[name]) == []


def test_all_six_nap_goldens_are_compared() -> None:
    on_disk = {p.stem for p in GOLDENS.glob("*/*nap*.json")}
    assert on_disk == set(CLUSTERS) | set(WORKLOADS)


@pytest.mark.parametrize(
    ("name", "path", "value", "says"),
    [
        ("a100-40gb-8-x2-nap-spot", (2, "resourceType"), "nvidia-a100-80gb", "resourceTypes"),
        ("v6e-256-x2-nap-spot", (2, "maximum"), "256", "maximum 256, XPK: 512"),
        ("v6e-256-nap-reservation", (2, "minimum"), "4", "minimum 4"),
        ("a100-40gb-8-x2-nap-reservation", (0, "maximum"), "2000000", "cpu maximum"),
    ],
)
def test_the_cluster_check_catches_a_wrong_limit(
    name: str, path: tuple[int, str], value: str, says: str
) -> None:
    family, kind, chips, _ = CLUSTERS[name]
    golden = copy.deepcopy(_load("gke", name))
    golden["plan"][0]["request"]["body"]["cluster"]["autoscaling"]["resourceLimits"][path[0]][
        path[1]
    ] = value
    assert any(says in p for p in cluster_problems(golden, family, kind, chips))


def test_the_cluster_check_catches_a_machine_label_in_the_flavor() -> None:
    golden = copy.deepcopy(_load("gke", "v6e-256-x2-nap-spot"))
    for step in golden["plan"]:
        if (
            isinstance(step.get("manifest"), dict)
            and step["manifest"].get("kind") == "ResourceFlavor"
        ):
            step["manifest"]["spec"]["nodeLabels"]["cloud.google.com/gke-tpu-topology"] = "16x16"
    assert any("flavor nodeLabels" in p for p in cluster_problems(golden, "v6e", "tpu", 512))


@pytest.mark.parametrize(
    ("name", "key", "value", "says"),
    [
        ("v6e-64-x2-nap-spot", "cloud.google.com/gke-spot", "false", "gke-spot"),
        ("v6e-16-x4-nap", "cloud.google.com/reservation-name", "zzz", "reservation-name"),
        ("v6e-16-x4-nap", "cloud.google.com/reservation-affinity", "any", "specific"),
        ("v6e-64-x2-nap-spot", "cloud.google.com/gke-tpu-topology", "4x4", "topology"),
        ("v6e-64-x2-nap-spot", "cloud.google.com/reservation-name", "r", "does not set"),
    ],
)
def test_the_workload_check_catches_a_wrong_selector(
    name: str, key: str, value: str, says: str
) -> None:
    golden = copy.deepcopy(_load("workload", name))
    for job in golden["plan"][0]["manifest"]["spec"]["replicatedJobs"]:
        job["template"]["spec"]["template"]["spec"]["nodeSelector"][key] = value
    assert any(says in p for p in workload_problems(golden, *WORKLOADS[name]))


def test_a_shared_reservation_differs_from_xpk_on_purpose() -> None:
    """XPK puts projects/P/reservations/R in reservation-name (reservation.py:409-416,
    capacity.py:188); a '/' is not valid in a label value, so a pod with it is refused by the
    API server. xcli splits it into reservation-name R and reservation-project P
    (tests/workload/jobset/test_nap.py checks xcli's side; docs/upstream.md says why)."""
    theirs = _xpk_selector("reservation", "projects/shared-proj/reservations/r2", "my-project")
    value = theirs["cloud.google.com/reservation-name"]
    assert value == "projects/shared-proj/reservations/r2"
    assert not LABEL_VALUE.match(value)
    assert LABEL_VALUE.match("r2") and LABEL_VALUE.match("shared-proj")
    # the same project: XPK's value is the bare name, as xcli's
    same = _xpk_selector("reservation", "projects/my-project/reservations/r2", "my-project")
    assert same == {"cloud.google.com/reservation-name": "r2"}
