"""Step kinds of `xcli cluster inspect`: reads of a cluster's Kubernetes API, and the bundle.

JSON form (every step also has id, kind, summary, after):
- k8s_read: "cluster", "api_version", "object_kind", "namespace" ("*": every namespace; absent: a
  cluster-scoped kind), "name" (absent: a list), "labels" (an equality selector, when set),
  "file" (where the answer goes in the archive)
- k8s_logs: "cluster", "namespace", "labels" (the pods), "container", "tail_lines", "file"
- bundle: "archive" (the .tar.gz written on this machine), "files" (the steps whose answers
  it holds), "redact" (what is replaced by `<redacted>` before anything is written)

They live in plan/ (not beside the command) because the gateway handlers read them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from xcli.plan.model import Step, symbolic
from xcli.plan.steps import Text


@dataclass(frozen=True, kw_only=True)
class K8sRead(Step):
    """GET one object or list a kind; the answer (redacted) is the step's output `objects`."""

    kind: ClassVar[str] = "k8s_read"

    cluster: Text
    api_version: str
    resource_kind: str
    namespace: str | None = None
    name: str | None = None
    labels: Mapping[str, str] = field(default_factory=dict)
    file: str

    def details(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "cluster": symbolic(self.cluster),
            "api_version": self.api_version,
            "object_kind": self.resource_kind,
        }
        for key, value in (("namespace", self.namespace), ("name", self.name)):
            if value is not None:
                out[key] = value
        if self.labels:
            out["labels"] = dict(self.labels)
        out["file"] = self.file
        return out


@dataclass(frozen=True, kw_only=True)
class K8sLogs(Step):
    """The last `tail_lines` lines of one container of every pod the labels select."""

    kind: ClassVar[str] = "k8s_logs"

    cluster: Text
    namespace: str
    labels: Mapping[str, str] = field(default_factory=dict)
    container: str | None = None
    tail_lines: int = 100
    file: str

    def details(self) -> dict[str, Any]:
        out: dict[str, Any] = {"cluster": symbolic(self.cluster), "namespace": self.namespace}
        if self.labels:
            out["labels"] = dict(self.labels)
        if self.container is not None:
            out["container"] = self.container
        out.update(tail_lines=self.tail_lines, file=self.file)
        return out


@dataclass(frozen=True, kw_only=True)
class Bundle(Step):
    """Write the answers of `files` (step ids) to one archive, redacted; output `summary`."""

    kind: ClassVar[str] = "bundle"

    archive: str
    files: tuple[str, ...]
    redact: tuple[str, ...]

    def details(self) -> dict[str, Any]:
        return {"archive": self.archive, "files": list(self.files), "redact": list(self.redact)}
