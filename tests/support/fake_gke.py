"""A small stateful fake of the GKE and Compute Engine REST APIs xcli uses.

`FakeGke.handle(method, url, body)` answers like the real services (JSON shapes from the
container.v1 discovery document): clusters and node pools are created by operations that finish
after `op_seconds` on the injected clock, node-pool operations beyond `pool_limit` running at
once get 429, and faults can be queued per URL. Tests plug it into `responses`; the provisioning
benchmark serves it over HTTP on 127.0.0.1.
"""

from __future__ import annotations

import itertools
import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tests.support.fake_networks import FakeNetworks

CONTAINER = re.compile(r"^/v1/(projects/[^/]+/locations/[^/]+)(/.*)?$")
COMPUTE = re.compile(r"^/compute/v1/(projects/[^/]+/regions/[^/]+)(/.*)?$")


@dataclass
class Op:
    name: str
    kind: str
    target: str
    ready_at: float
    error: str = ""
    done_hook: Callable[[], None] | None = None
    finished: bool = False


@dataclass
class FakeGke:
    op_seconds: float = 0.0
    pool_limit: int | None = None
    clock: Callable[[], float] = time.monotonic
    clusters: dict[str, dict[str, Any]] = field(default_factory=dict)
    pools: dict[str, dict[str, Any]] = field(default_factory=dict)  # path -> pool JSON
    policies: dict[str, dict[str, Any]] = field(default_factory=dict)
    ops: dict[str, Op] = field(default_factory=dict)
    requests: list[tuple[str, str, Any]] = field(default_factory=list)
    faults: list[tuple[str, str, int, str]] = field(default_factory=list)
    # what the network does instead of GKE answering: "reset" (the connection dropped after
    # the request was sent) or "html" (a proxy's 200 OK page); taken by tests/support/gke_live
    drops: list[tuple[str, str, str]] = field(default_factory=list)
    stockout: set[str] = field(default_factory=set)  # pool names whose create op fails
    net: FakeNetworks = field(default_factory=FakeNetworks)  # networks, subnets, firewalls
    _ids: Any = field(default_factory=lambda: itertools.count(1))
    _lock: threading.Lock = field(default_factory=threading.Lock)

    # --- test controls -----------------------------------------------------------------------

    def fail(self, method: str, url_part: str, status: int, message: str) -> None:
        """The next `method` request whose URL contains `url_part` answers `status`."""
        self.faults.append((method, url_part, status, message))

    def drop(self, method: str, url_part: str, kind: str) -> None:
        """The next `method` request whose URL contains `url_part` meets `kind` on the way."""
        self.drops.append((method, url_part, kind))

    def take_drop(self, method: str, path: str) -> str:
        with self._lock:
            for n, (m, part, kind) in enumerate(self.drops):
                if m == method and part in path:
                    del self.drops[n]
                    self.requests.append((method, path, kind))
                    return kind
        return ""

    def calls(self, method: str, url_part: str = "") -> list[tuple[str, str, Any]]:
        return [r for r in self.requests if r[0] == method and url_part in r[1]]

    # --- the service -------------------------------------------------------------------------

    def handle(self, method: str, path: str, body: Any) -> tuple[int, Any]:
        with self._lock:
            self.requests.append((method, path, body))
            for n, (m, part, status, message) in enumerate(self.faults):
                if m == method and part in path:
                    del self.faults[n]
                    return status, _error(status, message)
            self._finish_ops()
            if self.net.owns(path):
                return self.net.handle(method, path, body)
            found = CONTAINER.match(path.split("?")[0])
            if found:
                return self._container(method, found.group(1), found.group(2) or "", body)
            found = COMPUTE.match(path.split("?")[0])
            if found:
                return self._compute(method, found.group(1), found.group(2) or "", body)
            return 404, _error(404, f"no such path {path}")

    def _new_op(self, kind: str, target: str, hook: Callable[[], None], error: str = "") -> Op:
        op = Op(f"operation-{next(self._ids)}", kind, target, self.clock() + self.op_seconds)
        op.done_hook, op.error = hook, error
        self.ops[op.name] = op
        return op

    def _finish_ops(self) -> None:
        now = self.clock()
        for op in self.ops.values():
            if not op.finished and now >= op.ready_at:
                op.finished = True
                if op.done_hook:
                    op.done_hook()

    def _op_json(self, op: Op, loc: str) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": op.name,
            "operationType": op.kind,
            "status": "DONE" if op.finished else "RUNNING",
            "targetLink": op.target,
            "selfLink": f"https://container.googleapis.com/v1/{loc}/operations/{op.name}",
        }
        start = op.ready_at - self.op_seconds
        out["startTime"] = _stamp(start)
        if op.finished:
            out["endTime"] = _stamp(op.ready_at)
        if op.finished and op.error:
            out["error"] = {"code": 8, "message": op.error}
            out["statusMessage"] = op.error
        return out

    def _container(self, method: str, loc: str, rest: str, body: Any) -> tuple[int, Any]:
        parts = rest.strip("/").split("/") if rest else []
        if parts[:1] == ["operations"] and method == "GET":
            op = self.ops.get(parts[1])
            return (200, self._op_json(op, loc)) if op else (404, _error(404, "no operation"))
        if parts == ["clusters"] and method == "GET":
            mine = [c for p, c in self.clusters.items() if p.startswith(loc + "/")]
            return 200, {"clusters": [self._cluster_json(c) for c in mine]}
        if parts == ["clusters"] and method == "POST":
            return self._create_cluster(loc, body["cluster"])
        key = f"{loc}/clusters/{parts[1]}" if len(parts) > 1 else ""
        if len(parts) == 2 and method == "PUT":
            return self._update_cluster(loc, key, body.get("update", {}))
        if len(parts) == 2:
            return self._cluster_call(method, key)
        if len(parts) == 3 and method == "POST":
            return self._create_pool(loc, key, body["nodePool"])
        if len(parts) == 4:
            return self._pool_call(method, loc, f"{key}/nodePools/{parts[3]}")
        return 404, _error(404, f"no such path {rest}")

    def _cluster_json(self, c: dict[str, Any]) -> dict[str, Any]:
        key = c["_key"]
        pools = [p for k, p in self.pools.items() if k.startswith(key + "/nodePools/")]
        out = {k: v for k, v in c.items() if not k.startswith("_")}
        out["nodePools"] = c.get("_system", []) + pools
        return out

    def _create_cluster(self, loc: str, cluster: dict[str, Any]) -> tuple[int, Any]:
        key = f"{loc}/clusters/{cluster['name']}"
        if key in self.clusters:
            return 409, _error(409, f"Already exists: {key}.")
        system = [{**p, "status": "RUNNING"} for p in cluster.get("nodePools", [])]
        record = {k: v for k, v in cluster.items() if k != "nodePools"}
        record.update(_key=key, _system=system, status="PROVISIONING", location=loc.split("/")[3])
        self.clusters[key] = record
        op = self._new_op("CREATE_CLUSTER", key, lambda: record.update(status="RUNNING"))
        return 200, self._op_json(op, loc)

    def _update_cluster(self, loc: str, key: str, update: dict[str, Any]) -> tuple[int, Any]:
        """clusters.update: only desiredClusterAutoscaling (node auto-provisioning's limits)
        is kept; the other desired* fields xcli sends are not modelled here."""
        cluster = self.clusters.get(key)
        if cluster is None:
            return 404, _error(404, f"Not found: {key}.")
        if "desiredClusterAutoscaling" in update:
            cluster["autoscaling"] = update["desiredClusterAutoscaling"]
        return 200, self._op_json(self._new_op("UPDATE_CLUSTER", key, lambda: None), loc)

    def _cluster_call(self, method: str, key: str) -> tuple[int, Any]:
        cluster = self.clusters.get(key)
        if cluster is None:
            return 404, _error(404, f"Not found: {key}.")
        if method == "GET":
            return 200, self._cluster_json(cluster)
        loc = key.split("/clusters/")[0]

        def gone() -> None:
            self.clusters.pop(key, None)
            for k in [k for k in self.pools if k.startswith(key + "/")]:
                del self.pools[k]

        cluster["status"] = "STOPPING"
        return 200, self._op_json(self._new_op("DELETE_CLUSTER", key, gone), loc)

    def _create_pool(self, loc: str, cluster: str, pool: dict[str, Any]) -> tuple[int, Any]:
        if cluster not in self.clusters:
            return 404, _error(404, f"Not found: {cluster}.")
        key = f"{cluster}/nodePools/{pool['name']}"
        if key in self.pools:
            return 409, _error(409, f"Already exists: {key}.")
        running = [o for o in self.ops.values() if o.kind == "CREATE_NODE_POOL" and not o.finished]
        if self.pool_limit is not None and len(running) >= self.pool_limit:
            return 429, _error(429, "Too many operations: concurrent operations quota")
        record = {**pool, "status": "PROVISIONING"}
        self.pools[key] = record
        fails = pool["name"] in self.stockout
        error = (
            f"[GCE_STOCKOUT] The zone '{loc}' does not have enough resources available"
            if fails
            else ""
        )

        def done() -> None:
            record["status"] = "ERROR" if fails else "RUNNING"

        op = self._new_op("CREATE_NODE_POOL", key, done, error)
        return 200, self._op_json(op, loc)

    def _pool_call(self, method: str, loc: str, key: str) -> tuple[int, Any]:
        pool = self.pools.get(key)
        if pool is None:
            return 404, _error(404, f"Not found: {key}.")
        if method == "GET":
            return 200, pool
        pool["status"] = "STOPPING"
        op = self._new_op("DELETE_NODE_POOL", key, lambda: self.pools.pop(key, None))
        return 200, self._op_json(op, loc)

    def _compute(self, method: str, loc: str, rest: str, body: Any) -> tuple[int, Any]:
        parts = rest.strip("/").split("/")
        base = f"https://compute.googleapis.com/compute/v1/{loc}"
        if parts[0] == "operations":
            op = self.ops[parts[1]]
            op.finished = True
            return 200, {
                "name": op.name,
                "status": "DONE",
                "selfLink": f"{base}/operations/{op.name}",
            }
        if len(parts) == 1 and method == "GET":
            return 200, {"items": list(self.policies.values())}
        if len(parts) == 1 and method == "POST":
            if body["name"] in self.policies:
                return 409, _error(409, "The resource already exists")
            self.policies[body["name"]] = body
        elif parts[1] not in self.policies:
            return 404, _error(404, "The resource was not found")
        elif method == "GET":
            return 200, self.policies[parts[1]]
        else:
            del self.policies[parts[1]]
        op = self._new_op("compute", loc, lambda: None)
        op.ready_at = float("inf")  # done once someone waits on it (operations.wait)
        # Compute writes selfLinks on the www.googleapis.com host
        link = f"https://www.googleapis.com/compute/v1/{loc}/operations/{op.name}"
        return 200, {"name": op.name, "status": "RUNNING", "selfLink": link}


def _error(status: int, message: str) -> dict[str, Any]:
    names = {400: "FAILED_PRECONDITION", 403: "PERMISSION_DENIED", 404: "NOT_FOUND",
             409: "ALREADY_EXISTS", 429: "RESOURCE_EXHAUSTED"}  # fmt: skip
    return {"error": {"code": status, "message": message, "status": names.get(status, "UNKNOWN")}}


def _stamp(seconds: float) -> str:
    """RFC 3339 time, as GKE writes operation start and end times (only differences matter)."""
    from datetime import datetime, timedelta, timezone

    base = datetime(2026, 1, 1, tzinfo=timezone.utc)
    return (base + timedelta(seconds=seconds)).isoformat().replace("+00:00", "Z")


def as_json(body: bytes | str | None) -> Any:
    if not body:
        return None
    return json.loads(body)
