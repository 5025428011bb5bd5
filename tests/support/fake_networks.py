"""A small stateful fake of Compute Engine networks, subnetworks and firewalls (REST JSON).

It answers like the real service where xcli depends on it: inserts answer 409 when the name
exists, a subnet or firewall rule needs its network to exist (400 otherwise), deleting a network
still used by a subnet, a firewall rule or a registered outside user answers 400
resourceInUseByAnotherResource naming that user, deletes of missing resources answer 404, and
every change happens when its operation is polled to DONE. `fail_next_insert(name)` makes the
operation of the next insert of `name` end with an error, with nothing created (what a quota or
capacity failure looks like). `log` records each change in the order it took effect.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

PATH = re.compile(
    r"^/compute/v1/projects/(?P<project>[^/]+)/"
    r"(?:global|regions/(?P<region>[^/]+))/(?P<kind>networks|firewalls|subnetworks|operations)"
    r"(?:/(?P<name>[^/?]+))?"
)
KINDS = {"networks": "network", "firewalls": "firewall", "subnetworks": "subnet"}


def _error(status: int, message: str, reason: str = "") -> dict[str, Any]:
    err: dict[str, Any] = {"code": status, "message": message}
    if reason:
        err["errors"] = [{"message": message, "domain": "global", "reason": reason}]
    return {"error": err}


@dataclass
class FakeNetworks:
    store: dict[str, dict[str, dict[str, Any]]] = field(
        default_factory=lambda: {"networks": {}, "firewalls": {}, "subnetworks": {}}
    )
    outside_users: dict[str, str] = field(default_factory=dict)  # network -> user's self link
    log: list[str] = field(default_factory=list)
    failing: set[str] = field(default_factory=set)
    _ops: dict[str, tuple[Callable[[], None] | None, str]] = field(default_factory=dict)
    _ids: Any = field(default_factory=lambda: itertools.count(1))

    def fail_next_insert(self, name: str) -> None:
        self.failing.add(name)

    def owns(self, path: str) -> bool:
        found = PATH.match(path.split("?")[0])
        if not found:
            return False
        return found["kind"] != "operations" or str(found["name"]).startswith("netop-")

    def handle(self, method: str, path: str, body: Any) -> tuple[int, Any]:
        found = PATH.match(path.split("?")[0])
        assert found is not None
        kind, name, project = found["kind"], found["name"], found["project"]
        if kind == "operations":
            return 200, self._finish(str(name), path)
        items = self.store[kind]
        if method == "GET" and name is None:
            return 200, {"items": list(items.values())}
        if method == "GET":
            return (200, items[name]) if name in items else (404, _error(404, "not found"))
        if method == "POST":
            return self._insert(kind, project, found["region"], body, path)
        return self._delete(kind, project, str(name), path)

    def _insert(
        self, kind: str, project: str, region: str | None, body: Any, path: str
    ) -> tuple[int, Any]:
        name = body["name"]
        items = self.store[kind]
        if name in items:
            return 409, _error(409, f"The resource '{name}' already exists", "alreadyExists")
        if kind != "networks":
            network = str(body["network"]).rsplit("/", 1)[-1]
            if network not in self.store["networks"]:
                return 400, _error(400, f"The resource network '{network}' is not ready")
        scope = f"regions/{region}" if region else "global"
        link = f"https://www.googleapis.com/compute/v1/projects/{project}/{scope}/{kind}/{name}"
        stored = {**body, "selfLink": link, "id": str(next(self._ids))}
        if "network" in body:
            network = str(body["network"]).rsplit("/", 1)[-1]
            stored["network"] = (
                f"https://www.googleapis.com/compute/v1/projects/{project}/global/networks/{network}"
            )
        if "networkProfile" in body:
            stored["networkProfile"] = (
                f"https://www.googleapis.com/compute/v1/{body['networkProfile']}"
            )
        if name in self.failing:
            self.failing.discard(name)
            return 200, self._op(None, f"QUOTA_EXCEEDED: no room for {name}", path)

        def create() -> None:
            items[name] = stored
            self.log.append(f"insert {KINDS[kind]} {name}")

        return 200, self._op(create, "", path)

    def _delete(self, kind: str, project: str, name: str, path: str) -> tuple[int, Any]:
        items = self.store[kind]
        if name not in items:
            return 404, _error(404, f"The resource '{name}' was not found", "notFound")
        if kind == "networks":
            users = [
                item["selfLink"]
                for k in ("subnetworks", "firewalls")
                for item in self.store[k].values()
                if str(item["network"]).endswith(f"/networks/{name}")
            ]
            if name in self.outside_users:
                users.append(self.outside_users[name])
            if users:
                link = items[name]["selfLink"]
                message = f"The network resource '{link}' is already being used by '{users[0]}'"
                return 400, _error(400, message, "resourceInUseByAnotherResource")

        def remove() -> None:
            items.pop(name, None)
            self.log.append(f"delete {KINDS[kind]} {name}")

        return 200, self._op(remove, "", path)

    def _op(self, done: Callable[[], None] | None, error: str, path: str) -> dict[str, Any]:
        name = f"netop-{next(self._ids)}"
        self._ops[name] = (done, error)
        return {"name": name, "status": "RUNNING"}

    def _finish(self, name: str, path: str) -> dict[str, Any]:
        done, error = self._ops[name]
        if done is not None:
            done()
            self._ops[name] = (None, error)
        out: dict[str, Any] = {"name": name, "status": "DONE"}
        if error:
            out["error"] = {"errors": [{"code": "QUOTA_EXCEEDED", "message": error}]}
        return out
