"""What a live run reads before it plans, as a dry-run that reads nothing shows it (pure).

Some plans depend on the cluster's answer: `workload delete` without a name (which workloads
the selection keeps), `storage detach|delete NAME` (the storage's record: its PV, PVC, type and
source). A live run reads first and plans with the answer (app/record.py's `LIVE`, the workload
facts); a dry-run reads nothing, so its plan starts with a `read_first` step saying what that
read is, and the steps after it take the answer through refs (`${record.pvc}`), printed as such:
what is known (names xcli derives, the requests sent) is printed as it is, what is read at run
time is a ref. Only a dry-run prints this step; a live run never runs it (the read it names
is the one the live run makes before planning).

JSON form (every step also has id, kind, summary, after): "cluster", "api_version",
"object_kind", "namespace", "name" (absent: a list), "labels" (an equality selector, when set),
"outputs" (each output the later steps use -> what it is).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from xcli.plan.model import Step


@dataclass(frozen=True, kw_only=True)
class ReadFirst(Step):
    kind: ClassVar[str] = "read_first"

    cluster: str
    api_version: str
    object_kind: str
    namespace: str
    name: str | None = None
    labels: Mapping[str, str] = field(default_factory=dict)
    outputs: Mapping[str, str] = field(default_factory=dict)

    def details(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "cluster": self.cluster,
            "api_version": self.api_version,
            "object_kind": self.object_kind,
            "namespace": self.namespace,
        }
        if self.name is not None:
            out["name"] = self.name
        if self.labels:
            out["labels"] = dict(self.labels)
        out["outputs"] = dict(self.outputs)
        return out
