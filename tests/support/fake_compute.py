"""FakeGke plus the Compute Engine calls of private clusters and the reservation pre-flight:
Cloud Routers (list, insert, delete; region operations like FakeGke's policies),
reservations, their blocks and sub-blocks (get), reservations.aggregatedList, and
machineTypes.get (the Pathways head pool's check) for the types in `machine_types`."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from tests.support.fake_gke import FakeGke, _error
from tests.support.reservation_samples import DEFAULTS, aggregated

ROUTERS = re.compile(r"^/compute/v1/(projects/[^/]+/regions/[^/]+)/routers(?:/([^/]+))?$")
RESERVATION = re.compile(r"^/compute/v1/(projects/[^/]+/zones/[^/]+/reservations/.+)$")
AGGREGATED = re.compile(r"^/compute/v1/projects/([^/]+)/aggregated/reservations$")
MACHINE_TYPE = re.compile(r"^/compute/v1/projects/[^/]+/zones/([^/]+)/machineTypes/([^/]+)$")
# name -> (guestCpus, memoryMb): what machineTypes.get answers for the n2 shapes Compute
# Engine documents (4 GB per vCPU: cloud.google.com/compute/docs/general-purpose-machines)
MACHINES = {"n2-standard-64": (64, 262144), "n2-standard-32": (32, 131072)}


@dataclass
class FakeNet(FakeGke):
    routers: dict[str, dict[str, Any]] = field(default_factory=dict)  # name -> Router
    # projects/P/zones/Z/reservations/R[/reservationBlocks/B[/reservationSubBlocks/S]] -> JSON
    reservations: dict[str, dict[str, Any]] = field(default_factory=lambda: dict(DEFAULTS))
    machine_types: dict[str, tuple[int, int]] = field(default_factory=lambda: dict(MACHINES))

    def handle(self, method: str, path: str, body: Any) -> tuple[int, Any]:
        bare = path.split("?")[0]
        for pattern, answer in (
            (ROUTERS, self._routers),
            (RESERVATION, self._reservation),
            (AGGREGATED, self._aggregated),
            (MACHINE_TYPE, self._machine_type),
        ):
            found = pattern.match(bare)
            if found:
                with self._lock:
                    self.requests.append((method, path, body))
                    return answer(method, found, body)
        return super().handle(method, path, body)

    def _routers(self, method: str, found: re.Match[str], body: Any) -> tuple[int, Any]:
        loc, name = found.group(1), found.group(2)
        if method == "GET" and name is None:
            return 200, {"kind": "compute#routerList", "items": list(self.routers.values())}
        if method == "POST":
            if body["name"] in self.routers:
                return 409, _error(409, "The resource already exists")
            self.routers[body["name"]] = {**body, "region": loc.rsplit("/", 1)[1]}
        elif name not in self.routers:
            return 404, _error(404, "The resource was not found")
        elif method == "GET":
            return 200, self.routers[name]
        else:
            del self.routers[name]
        op = self._new_op("compute", loc, lambda: None)
        op.ready_at = float("inf")  # done once someone polls it, as FakeGke's policies
        link = f"https://www.googleapis.com/compute/v1/{loc}/operations/{op.name}"
        return 200, {"name": op.name, "status": "RUNNING", "selfLink": link}

    def _machine_type(self, method: str, found: re.Match[str], body: Any) -> tuple[int, Any]:
        zone, name = found.group(1), found.group(2)
        if method != "GET" or name not in self.machine_types:
            return 404, _error(404, f"The resource 'machineTypes/{name}' was not found")
        cpus, memory = self.machine_types[name]
        return 200, {"name": name, "zone": zone, "guestCpus": cpus, "memoryMb": memory}

    def _reservation(self, method: str, found: re.Match[str], body: Any) -> tuple[int, Any]:
        data = self.reservations.get(found.group(1))
        if method != "GET" or data is None:
            return 404, _error(404, f"The resource '{found.group(1)}' was not found")
        return 200, data

    def _aggregated(self, method: str, found: re.Match[str], body: Any) -> tuple[int, Any]:
        zones: dict[str, list[dict[str, Any]]] = {}
        for key, data in self.reservations.items():
            parts = key.split("/")
            if parts[1] == found.group(1) and len(parts) == 6:
                zones.setdefault(parts[3], []).append(data)
        return 200, aggregated(zones)
