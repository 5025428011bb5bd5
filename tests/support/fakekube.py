"""An in-memory Kubernetes API server behind httpx2.MockTransport (no socket, no thread).

It does what the gateway needs from a real one, at the HTTP level: server-side apply creates
(201) or updates (200) the object at the PATCH URL and echoes it with a uid, dryRun=All echoes
without storing, GET answers the object or a 404 Status, collection GETs list (honouring
equality label and field selectors, one without a namespace listing every namespace,
and paging with `limit` and `continue`), DELETE removes, pods/<name>/log answers text.
Tests queue scripted answers for a (method, path) with `script`, e.g. webhook failures, and
read back every request from `requests`; `put` stores an object as the cluster's
controllers would have.
"""

from __future__ import annotations

import json
import threading
from typing import Any

import httpx2


def status(code: int, reason: str, message: str) -> httpx2.Response:
    body = {"kind": "Status", "apiVersion": "v1", "status": "Failure", "message": message}
    body.update({"reason": reason, "code": code})
    return httpx2.Response(code, json=body, headers={"Content-Type": "application/json"})


def webhook_down(name: str = "vjobset.kb.io") -> httpx2.Response:
    return status(
        500,
        "InternalError",
        f'Internal error occurred: failed calling webhook "{name}": failed to call webhook: '
        'Post "https://jobset-webhook-service.jobset-system.svc:443/validate": '
        "dial tcp 10.0.0.7:443: connect: connection refused",
    )


class FakeKube:
    def __init__(self, *, auto_ready: bool = False) -> None:
        self.auto_ready = auto_ready
        self.requests: list[httpx2.Request] = []
        self.objects: dict[str, dict[str, Any]] = {}
        self.logs: dict[str, str] = {}
        # logs whose lines begin with the kubelet's RFC 3339 time: answered as they are with
        # timestamps=true, with the times taken off without it (as the API server does)
        self.stamped: dict[str, str] = {}
        self._script: dict[tuple[str, str], list[httpx2.Response]] = {}
        self._lock = threading.Lock()
        self._uid = 0

    def transport(self) -> httpx2.MockTransport:
        return httpx2.MockTransport(self.handle)

    def script(self, method: str, path: str, *answers: httpx2.Response) -> None:
        self._script.setdefault((method, path), []).extend(answers)

    def patches(self, *, dry_run: bool | None = None) -> list[httpx2.Request]:
        found = [r for r in self.requests if r.method == "PATCH"]
        if dry_run is not None:
            found = [r for r in found if (r.url.params.get("dryRun") == "All") == dry_run]
        return found

    def handle(self, request: httpx2.Request) -> httpx2.Response:
        with self._lock:
            self.requests.append(request)
            path = request.url.path
            queued = self._script.get((request.method, path))
            if queued:
                return queued.pop(0)
            if request.method == "PATCH":
                return self._apply(request, path)
            if request.method == "GET":
                return self._get(path, request)
            if request.method == "DELETE":
                if self.objects.pop(path, None) is None:
                    return status(404, "NotFound", f"{path} not found")
                return httpx2.Response(200, json={"kind": "Status", "status": "Success"})
            return status(405, "MethodNotAllowed", request.method)

    def _apply(self, request: httpx2.Request, path: str) -> httpx2.Response:
        assert request.headers["Content-Type"] == "application/apply-patch+yaml"
        obj = json.loads(request.content)
        if request.url.params.get("dryRun") == "All":
            return httpx2.Response(200, json=obj)
        existed = path in self.objects
        uid = (self.objects.get(path) or {}).get("metadata", {}).get("uid")
        if uid is None:
            self._uid += 1
            uid = f"uid-{self._uid}"
        stored = json.loads(json.dumps(obj))
        stored.setdefault("metadata", {})["uid"] = uid
        if self.auto_ready and obj["kind"] in ("CustomResourceDefinition", "Deployment"):
            kind = "Established" if obj["kind"] == "CustomResourceDefinition" else "Available"
            stored["status"] = {"conditions": [{"type": kind, "status": "True"}]}
        self.objects[path] = stored
        return httpx2.Response(200 if existed else 201, json=stored)

    def put(self, path: str, obj: dict[str, Any]) -> None:
        """Store an object as the cluster's controllers would have made it (status included)."""
        self.objects[path] = obj

    def _get(self, path: str, request: httpx2.Request) -> httpx2.Response:
        if path in self.objects:
            return httpx2.Response(200, json=self.objects[path])
        if path.endswith("/log"):
            pod = path.rsplit("/", 2)[-2]
            if pod in self.stamped:
                text = self.stamped[pod]
                if request.url.params.get("timestamps") != "true":
                    text = "".join(line.partition(" ")[2] + "\n" for line in text.splitlines())
                return httpx2.Response(200, text=text)
            if pod in self.logs:
                return httpx2.Response(200, text=self.logs[pod])
            return status(404, "NotFound", f'pods "{pod}" not found')
        if _is_collection(path):
            items = [o for p, o in sorted(self.objects.items()) if _in(p.rsplit("/", 1)[0], path)]
            params = dict(request.url.params)  # parsed once: a list may hold thousands
            items = [o for o in items if _selected(o, params)]
            return httpx2.Response(200, json=_page(items, params))
        return status(404, "NotFound", f"{path} not found")


def _page(items: list[dict[str, Any]], params: Any) -> dict[str, Any]:
    """One page of a list, as the API server pages it: `limit` items from the `continue` token
    on, and a token for the rest while any is left (the token here is the offset)."""
    limit = int(params.get("limit") or 0)
    start = int(params.get("continue") or 0)
    if not limit:
        return {"kind": "List", "metadata": {}, "items": items[start:]}
    page = items[start : start + limit]
    more = start + limit < len(items)
    meta: dict[str, Any] = {"continue": str(start + limit)} if more else {}
    if more:
        meta["remainingItemCount"] = len(items) - start - limit
    return {"kind": "List", "metadata": meta, "items": page}


def _in(parent: str, collection: str) -> bool:
    """An object whose parent path is `parent` is listed by `collection`: its own, or the
    collection of every namespace (/api/v1/events lists /api/v1/namespaces/NS/events/NAME)."""
    if parent == collection:
        return True
    prefix, _, plural = collection.rpartition("/")
    head, _, rest = parent.partition(prefix + "/namespaces/")
    return head == "" and rest.count("/") == 1 and rest.endswith("/" + plural)


def _is_collection(path: str) -> bool:
    """/api/v1/PLURAL, /apis/G/V/PLURAL, and the same under namespaces/NS/."""
    parts = path.strip("/").split("/")
    rest = parts[2:] if parts[0] == "api" else parts[3:]
    if rest and rest[0] == "namespaces" and len(rest) >= 3:
        return len(rest) == 3
    return len(rest) == 1


def _selected(obj: dict[str, Any], params: Any) -> bool:
    """Equality label and field selectors (k=v,k2=v2), as the API server applies them."""
    labels = (obj.get("metadata") or {}).get("labels") or {}
    for term in filter(None, (params.get("labelSelector") or "").split(",")):
        key, _, value = term.partition("=")
        if labels.get(key) != value:
            return False
    for term in filter(None, (params.get("fieldSelector") or "").split(",")):
        key, _, value = term.partition("=")
        found: Any = obj
        for part in key.split("."):
            found = found.get(part) if isinstance(found, dict) else None
        if str(found) != value:
            return False
    return True
