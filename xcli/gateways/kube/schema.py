"""A built-in Kubernetes object checked against its schema before it is applied: lightkube's
models (lightkube-models, generated from the Kubernetes OpenAPI document), the same the kube
gateway decodes answers with. Types and required fields are checked, with the path of the first
problem (`$.spec.csi.driver`); fields the model does not know are left to the API server."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from xcli.gateways.kube.api import builtin_model


def problem(obj: Mapping[str, Any]) -> str:
    """Why `obj` is not a valid object of its built-in kind ("" when it is)."""
    model = builtin_model(str(obj.get("apiVersion", "")), str(obj.get("kind", "")))
    if model is None:
        return f"{obj.get('apiVersion')} {obj.get('kind')} is not a built-in Kubernetes kind"
    try:
        model.from_dict(dict(obj))
    except (ValueError, TypeError) as exc:  # msgspec.ValidationError is a ValueError
        return str(exc)
    return ""
