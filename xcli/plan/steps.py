"""The kinds of step. Each holds exactly what a live run sends or does; the dry-run prints it.

JSON form (docs/dry-run.md): every step has id, kind, summary, after; then
- api_call: "api" (discovery method id), "request" {"method", "url", "body"}, "accept"
- wait: "request" (what is polled), "until", "timeout_seconds"
- k8s_apply: "cluster", "manifest"
- ssh: "workers" [{"worker", "host", "argv"}]
- local: "action", "args"
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from xcli.plan.model import Fmt, Ref, Step, symbolic

Text = str | Ref | Fmt


@dataclass(frozen=True, kw_only=True)
class ApiCall(Step):
    """One REST request to a Google API.

    `api` is the discovery-document method id (container.projects.locations.clusters.create);
    `body` is the REST JSON body, camelCase, enums by name. The live gateway builds its request
    from these same fields. `accept` lists API statuses that count as success (ALREADY_EXISTS
    on a create that is being re-run, NOT_FOUND on a delete of something already gone).
    """

    kind: ClassVar[str] = "api_call"

    api: str
    method: str
    url: Text
    body: Mapping[str, Any] | None = None
    accept: tuple[str, ...] = ()

    def details(self) -> dict[str, Any]:
        request: dict[str, Any] = {"method": self.method, "url": symbolic(self.url)}
        if self.body is not None:
            request["body"] = symbolic(self.body)
        out: dict[str, Any] = {"api": self.api, "request": request}
        if self.accept:
            out["accept"] = list(self.accept)
        return out


@dataclass(frozen=True, kw_only=True)
class Wait(Step):
    """Poll `url` (with backoff) until `until` holds or `timeout_seconds` pass."""

    kind: ClassVar[str] = "wait"

    api: str
    url: Text
    until: str
    timeout_seconds: int

    def details(self) -> dict[str, Any]:
        return {
            "api": self.api,
            "request": {"method": "GET", "url": symbolic(self.url)},
            "until": self.until,
            "timeout_seconds": self.timeout_seconds,
        }


@dataclass(frozen=True, kw_only=True)
class K8sApply(Step):
    """Server-side apply of one Kubernetes object to a cluster."""

    kind: ClassVar[str] = "k8s_apply"

    cluster: Text
    manifest: Mapping[str, Any]
    field_manager: str = "xcli"
    # the user's variables whose values the printed plan hides (a Secret's data, --env values)
    redact: tuple[str, ...] = field(default=(), metadata={"print": False})

    def details(self) -> dict[str, Any]:
        out = super().details()
        if self.redact:
            out["manifest"] = redacted(out["manifest"], frozenset(self.redact))
        return out


REDACTED = "<redacted>"


def redacted(value: Any, names: frozenset[str]) -> Any:
    """`value` with the values of the variables in `names` replaced by REDACTED: in an
    `env` entry (`{"name": N, "value": V}`) and in a Secret's `stringData`/`data`."""
    if isinstance(value, list):
        return [redacted(v, names) for v in value]
    if not isinstance(value, Mapping):
        return value
    out = {k: redacted(v, names) for k, v in value.items()}
    if out.get("name") in names and "value" in out:
        out["value"] = REDACTED
    for key in ("stringData", "data"):
        if value.get("kind") == "Secret" and isinstance(value.get(key), Mapping):
            out[key] = {k: REDACTED if k in names else v for k, v in value[key].items()}
    return out


@dataclass(frozen=True)
class WorkerCommand:
    worker: str  # "w3" or "s1/w3"
    host: Text
    argv: tuple[str, ...]


@dataclass(frozen=True, kw_only=True)
class SshFanout(Step):
    """Run a command on many workers at once (a sliding window of `batch_size`)."""

    kind: ClassVar[str] = "ssh"

    workers: tuple[WorkerCommand, ...]
    batch_size: int = 64
    connect_timeout: int = 10

    def details(self) -> dict[str, Any]:
        return {
            "batch_size": self.batch_size,
            "connect_timeout": self.connect_timeout,
            "workers": [
                {"worker": w.worker, "host": symbolic(w.host), "argv": list(w.argv)}
                for w in self.workers
            ],
        }


@dataclass(frozen=True, kw_only=True)
class LocalAction(Step):
    """Something done on this machine: start a process, write a file, generate a key."""

    kind: ClassVar[str] = "local"

    action: str
    args: Mapping[str, Any] = field(default_factory=dict)
