"""The step kind that waits for a DaemonSet to run on every node it selects (`k8s_rollout`).

JSON form (beside id, kind, summary, after): "cluster", "namespace", "name",
"timeout_seconds". Done when the DaemonSet controller has seen the latest spec
(status.observedGeneration >= metadata.generation) and every pod it wants is ready
(status.numberReady == status.desiredNumberScheduled); the output is {"ready", "desired"}.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from xcli.plan.model import Step, symbolic
from xcli.plan.steps import Text


@dataclass(frozen=True, kw_only=True)
class K8sRollout(Step):
    kind: ClassVar[str] = "k8s_rollout"

    cluster: Text
    namespace: str
    name: str
    timeout_seconds: int = 1800

    def details(self) -> dict[str, Any]:
        return {
            "cluster": symbolic(self.cluster),
            "namespace": self.namespace,
            "name": self.name,
            "timeout_seconds": self.timeout_seconds,
        }
