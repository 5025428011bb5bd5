"""The Google APIs `xcli storage` calls, in memory, behind `responses`: GKE (clusters.get,
clusters.update, operations.get), Resource Manager v3 (projects.get), Cloud Storage (buckets
insert/delete, getIamPolicy/setIamPolicy with etags) and Filestore (instances get/create/
delete, operations). Every request body is checked against its discovery document."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import responses

from tests.support.discovery import check_request

HOSTS = re.compile(r"https://(container|cloudresourcemanager|storage|file)\.googleapis\.com/.*")
NUMBER = "123456789012"


@dataclass
class FakeGoogle:
    addons: dict[str, bool] = field(default_factory=dict)
    workload_pool: str = "my-proj.svc.id.goog"
    policies: dict[str, dict[str, Any]] = field(default_factory=dict)
    buckets: dict[str, dict[str, Any]] = field(default_factory=dict)
    instances: dict[str, dict[str, Any]] = field(default_factory=dict)
    calls: list[tuple[str, str, Any]] = field(default_factory=list)
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
            for key, value in body["update"]["desiredAddonsConfig"].items():
                self.addons[key] = value["enabled"]
            return 200, {"name": "op-1", "status": "RUNNING", "operationType": "UPDATE_CLUSTER"}
        addons = {k: {"enabled": v} for k, v in self.addons.items()}
        return 200, {
            "name": "demo",
            "status": "RUNNING",
            "addonsConfig": addons,
            "workloadIdentityConfig": {"workloadPool": self.workload_pool},
        }

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
