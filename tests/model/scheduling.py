"""How the scheduler matches a pod to a node: nodeSelector, required node affinity, taints and
tolerations, extended resources (Kubernetes semantics: https://kubernetes.io/docs/concepts/
scheduling-eviction/assign-pod-node/ and .../taint-and-toleration/). Each check answers with the
first field that does not fit, or None."""

from __future__ import annotations

from typing import Any

from tests.model.nodes import NodePool, Taint

BLOCKING = {"NoSchedule", "NoExecute"}


def expression(expr: dict[str, Any], labels: dict[str, str]) -> bool:
    key, op, values = expr["key"], expr["operator"], expr.get("values", [])
    if op == "In":
        return labels.get(key) in values
    if op == "NotIn":
        return labels.get(key) not in values
    if op == "Exists":
        return key in labels
    if op == "DoesNotExist":
        return key not in labels
    if op in ("Gt", "Lt") and key in labels:
        have, want = int(labels[key]), int(values[0])
        return have > want if op == "Gt" else have < want
    return False


def tolerates(tolerations: list[dict[str, Any]], taint: Taint) -> bool:
    for tol in tolerations:
        if tol.get("effect") and tol["effect"] != taint.effect:
            continue
        if tol.get("operator") == "Exists" and (not tol.get("key") or tol["key"] == taint.key):
            return True
        if tol.get("key") == taint.key and tol.get("value", "") == taint.value:
            return True
    return False


# Kubernetes quantity suffixes (https://kubernetes.io/docs/reference/kubernetes-api/common-definitions/quantity/)
_SUFFIXES = {"m": 1e-3, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "Ki": 2**10, "Mi": 2**20}
_SUFFIXES |= {"Gi": 2**30, "Ti": 2**40}


def quantity(value: str) -> float:
    """A Kubernetes quantity as a number (cores, bytes, or a count)."""
    text = str(value)
    for suffix in sorted(_SUFFIXES, key=len, reverse=True):
        if text.endswith(suffix):
            return float(text[: -len(suffix)]) * _SUFFIXES[suffix]
    return float(text)


def requests(pod: dict[str, Any]) -> dict[str, str]:
    """Resources the pod's containers and native sidecars ask for (limits stand in for requests,
    as Kubernetes defaults them)."""
    asked: dict[str, str] = {}
    containers = list(pod.get("containers", []))
    containers += [c for c in pod.get("initContainers", []) if c.get("restartPolicy") == "Always"]
    for container in containers:
        res = container.get("resources", {})
        for name, value in {**res.get("limits", {}), **res.get("requests", {})}.items():
            asked[name] = (
                value if name not in asked else str(quantity(asked[name]) + quantity(value))
            )
    return asked


# (key, value, where it comes from): the pod's own nodeSelector, or a flavor Kueue injects
Selector = list[tuple[str, str, str]]


def misfit(
    pod: dict[str, Any], pool: NodePool, selector: Selector, tolerations: list[dict[str, Any]]
) -> str | None:
    """The first field of the pod that the pool's nodes do not satisfy."""
    for key, value, origin in selector:
        if pool.labels.get(key) != value:
            return f"nodeSelector {key}={value}{origin}"
    required = pod.get("affinity", {}).get("nodeAffinity", {})
    required = required.get("requiredDuringSchedulingIgnoredDuringExecution", {})
    terms = required.get("nodeSelectorTerms", [])
    if terms and not any(
        all(expression(e, pool.labels) for e in t.get("matchExpressions", [])) for t in terms
    ):
        return "affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"
    for taint in pool.taints:
        if taint.effect in BLOCKING and not tolerates(tolerations, taint):
            return f"tolerations (taint {taint.key}={taint.value}:{taint.effect})"
    for name, value in requests(pod).items():
        if "/" in name and float(value) > pool.allocatable.get(name, 0):
            return f"resources {name}={value} (nodes offer {pool.allocatable.get(name, 0)})"
    return None
