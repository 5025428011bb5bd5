"""The Google APIs `xcli storage` calls, in memory, behind `responses`: GKE (clusters.get,
clusters.update, operations.get), Resource Manager v3 (projects.get), Cloud Storage (buckets
insert/delete, getIamPolicy/setIamPolicy with etags) and Filestore (instances get/create/
delete, operations), Compute Engine (global addresses, firewall rules), Service Networking
(connections), Managed Lustre and Parallelstore (instances get, Lustre create). Every request
body is checked against its discovery document (Lustre has none: its body is compared with
the dry-run's by the tests)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import responses

from tests.support.discovery import check_request

HOSTS = re.compile(
    r"https://(container|cloudresourcemanager|storage|file|compute|servicenetworking|lustre|"
    r"parallelstore)\.googleapis\.com/.*"
)
NUMBER = "123456789012"


@dataclass
class FakeGoogle:
    addons: dict[str, bool] = field(default_factory=dict)
    workload_pool: str = "my-proj.svc.id.goog"
    policies: dict[str, dict[str, Any]] = field(default_factory=dict)
    buckets: dict[str, dict[str, Any]] = field(default_factory=dict)
    instances: dict[str, dict[str, Any]] = field(default_factory=dict)
    calls: list[tuple[str, str, Any]] = field(default_factory=list)
    node_pools: list[str] = field(default_factory=lambda: ["default-pool", "tpu-pool"])
    upgraded: list[str] = field(default_factory=list)
    # Private Service Access: the connections of the network, and the project's global addresses
    connections: list[dict[str, Any]] = field(default_factory=list)
    addresses: list[dict[str, Any]] = field(default_factory=list)
    firewalls: dict[str, dict[str, Any]] = field(default_factory=dict)
    _etag: int = 0

    def handle(self, method: str, url: str, body: Any) -> tuple[int, Any]:
        self.calls.append((method, url, body))
        host = url.split("/")[2].split(".")[0]
        path = url.split(".googleapis.com/", 1)[1]
        return getattr(self, f"_{host}")(method, path, body)

    def _container(self, method: str, path: str, body: Any) -> tuple[int, Any]:
        if "/operations/" in path:
            return 200, {
                "name": path.rsplit("/", 1)[1],
                "status": "DONE",
                "operationType": "UPDATE_CLUSTER",
            }
        if method == "PUT":
            check_request(
                "container.projects.locations.clusters.update",
                method,
                f"https://container.googleapis.com/{path.split('?', 1)[0]}",  # GAPIC adds $alt
                body,
            )
            update = body["update"]
            if "desiredNodePoolId" in update:
                assert update["desiredNodePoolId"] in self.node_pools
                self.upgraded.append(update["desiredNodePoolId"])
            for key, value in update.get("desiredAddonsConfig", {}).items():
                self.addons[key] = value["enabled"]
            return 200, {"name": "op-1", "status": "RUNNING", "operationType": "UPDATE_CLUSTER"}
        addons = {k: {"enabled": v} for k, v in self.addons.items()}
        return 200, {
            "name": "demo",
            "status": "RUNNING",
            "addonsConfig": addons,
            "workloadIdentityConfig": {"workloadPool": self.workload_pool},
            "nodePools": [{"name": n} for n in self.node_pools],
        }

    def _servicenetworking(self, method: str, path: str, body: Any) -> tuple[int, Any]:
        url = f"https://servicenetworking.googleapis.com/{path}"
        check_request("servicenetworking.services.connections.list", method, url)
        network = path.split("network=", 1)[1]
        found = [c for c in self.connections if c["network"] == network]
        return 200, {"connections": found} if found else {}

    def _compute(self, method: str, path: str, body: Any) -> tuple[int, Any]:
        url = f"https://compute.googleapis.com/{path}"
        rest = path.split("/global/", 1)[1].split("?", 1)[0]
        if rest.startswith("operations/"):
            return 200, {"name": rest.split("/", 1)[1], "status": "DONE"}
        if rest == "addresses":
            check_request("compute.globalAddresses.list", method, url)
            return 200, {"items": self.addresses}
        if rest == "firewalls" and method == "GET":
            check_request("compute.firewalls.list", method, url)
            return 200, {"items": list(self.firewalls.values())}
        if rest == "firewalls":
            check_request("compute.firewalls.insert", method, url, body)
            if body["name"] in self.firewalls:
                return 409, {"error": {"code": 409, "message": "already exists"}}
            self.firewalls[body["name"]] = {
                **body,
                "network": f"https://www.googleapis.com/compute/v1/{body['network']}",
            }
            return 200, {"name": "op-fw", "status": "DONE"}
        check_request("compute.firewalls.get", method, url)
        found = self.firewalls.get(rest.split("/", 1)[1])
        return (200, found) if found else (404, {"error": {"code": 404}})

    def _lustre(self, method: str, path: str, body: Any) -> tuple[int, Any]:
        if "/operations/" in path:
            return 200, {"name": path.split("v1/", 1)[1], "done": True}
        if method == "POST":
            parent, name = path.split("v1/", 1)[1].split("/instances?instanceId=")
            self.instances[f"{parent}/instances/{name}"] = {
                **body,
                "name": f"{parent}/instances/{name}",
                "mountPoint": f"10.90.0.2@tcp:/{body['filesystem']}",
                "state": "ACTIVE",
            }
            return 200, {"name": f"{parent}/operations/op-4", "done": False}
        found = self.instances.get(path.split("v1/", 1)[1])
        return (200, found) if found else (404, {"error": {"code": 404, "message": "not found"}})

    def _parallelstore(self, method: str, path: str, body: Any) -> tuple[int, Any]:
        url = f"https://parallelstore.googleapis.com/{path}"
        check_request("parallelstore.projects.locations.instances.get", method, url)
        found = self.instances.get(path.split("v1/", 1)[1])
        return (200, found) if found else (404, {"error": {"code": 404, "message": "not found"}})

    def _cloudresourcemanager(self, method: str, path: str, body: Any) -> tuple[int, Any]:
        return 200, {"name": f"projects/{NUMBER}", "projectId": path.rsplit("/", 1)[1]}

    def _storage(self, method: str, path: str, body: Any) -> tuple[int, Any]:
        url = f"https://storage.googleapis.com/{path}"
        if path.endswith("/iam") or "/iam?" in path:
            bucket = path.split("/b/", 1)[1].split("/", 1)[0]
            policy = self.policies.setdefault(bucket, {"bindings": [], "etag": "CAE="})
            if method == "GET":
                check_request("storage.buckets.getIamPolicy", method, url)
                return 200, policy
            check_request("storage.buckets.setIamPolicy", method, url, body)
            if body["etag"] != policy["etag"]:
                return 412, {"error": {"code": 412, "message": "Precondition Failed"}}
            self._etag += 1
            self.policies[bucket] = {**body, "etag": f"etag-{self._etag}"}
            return 200, self.policies[bucket]
        if method == "POST":
            check_request("storage.buckets.insert", method, url, body)
            self.buckets[body["name"]] = body
            return 200, body
        name = path.rsplit("/", 1)[1]
        check_request("storage.buckets.delete", method, url)
        return (204, None) if self.buckets.pop(name, None) else (404, {"error": {"code": 404}})

    def _file(self, method: str, path: str, body: Any) -> tuple[int, Any]:
        url = f"https://file.googleapis.com/{path}"
        if "/operations/" in path:
            return 200, {"name": path.split("v1/", 1)[1], "done": True}
        if method == "POST":
            check_request("file.projects.locations.instances.create", method, url, body)
            parent, name = path.split("v1/", 1)[1].split("/instances?instanceId=")
            self.instances[f"{parent}/instances/{name}"] = {
                **body,
                "networks": [{**body["networks"][0], "ipAddresses": ["10.0.0.2"]}],
            }
            return 200, {"name": f"{parent}/operations/op-2", "done": False}
        key = path.split("v1/", 1)[1]
        if method == "DELETE":
            check_request("file.projects.locations.instances.delete", method, url)
            self.instances.pop(key, None)
            return 200, {
                "name": key.rsplit("/instances/", 1)[0] + "/operations/op-3",
                "done": False,
            }
        check_request("file.projects.locations.instances.get", method, url)
        found = self.instances.get(key)
        return (200, found) if found else (404, {"error": {"code": 404, "message": "not found"}})


@contextmanager
def served(fake: FakeGoogle) -> Iterator[FakeGoogle]:
    def answer(request: Any) -> tuple[int, dict[str, str], str]:
        body = json.loads(request.body) if request.body else None
        status, data = fake.handle(request.method, request.url, body)
        return status, {"content-type": "application/json"}, json.dumps(data) if data else ""

    with responses.RequestsMock(assert_all_requests_are_fired=False) as rsps:
        for method in ("GET", "POST", "PUT", "DELETE"):
            rsps.add_callback(method, HOSTS, callback=answer)
        yield fake
