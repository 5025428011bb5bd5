"""Validate Kubernetes objects against the real JobSet, Kueue and KubeRay CRD schemas in
tests/data/, and the ComputeDomain CRD of the NVIDIA DRA driver that `cluster create` installs
on A4X (from the rendered chart xcli ships, xcli/providers/gke/manifests/).

The CRD's openAPIV3Schema is checked with jsonschema, made strict the way a structural schema
is: an object that lists properties takes no others, unless it says
x-kubernetes-preserve-unknown-fields. x-kubernetes-int-or-string accepts either type.
"""

from __future__ import annotations

import copy
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from tests.conftest import DATA
from xcli.providers import gke


@cache
def _crds() -> dict[tuple[str, str, str], dict[str, Any]]:
    """(group, version, kind) -> strict JSON schema of that version."""
    found: dict[tuple[str, str, str], dict[str, Any]] = {}
    paths = [*Path(DATA).glob("jobset/*.yaml"), *Path(DATA).glob("kueue/*.yaml")]
    paths += Path(DATA).glob("kuberay/*.yaml")  # the RayCluster of plan/gke/ray.py
    paths += sorted(Path(gke.__file__).parent.glob("manifests/*.yaml"))
    for path in sorted(paths):
        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        for doc in yaml.load_all(path.read_text(), Loader=loader):
            if not doc or doc.get("kind") != "CustomResourceDefinition":
                continue
            group, kind = doc["spec"]["group"], doc["spec"]["names"]["kind"]
            for version in doc["spec"]["versions"]:
                schema = copy.deepcopy(version["schema"]["openAPIV3Schema"])
                found[(group, version["name"], kind)] = _strict(schema)
    return found


def _strict(schema: dict[str, Any]) -> dict[str, Any]:
    pattern = schema.get("pattern")
    if isinstance(pattern, str) and pattern.startswith("^(?i)"):
        # Go's RE2 takes inline flags anywhere; Python's re only at the very start.
        schema["pattern"] = "(?i)^" + pattern[len("^(?i)") :]
    if schema.get("x-kubernetes-int-or-string"):
        schema.pop("type", None)
        schema["anyOf"] = [{"type": "integer"}, {"type": "string"}]
    if (
        schema.get("type") == "object"
        and "properties" in schema
        and not schema.get("x-kubernetes-preserve-unknown-fields")
        and "additionalProperties" not in schema
    ):
        schema["additionalProperties"] = False
    for key in ("properties", "patternProperties"):
        for child in schema.get(key, {}).values():
            _strict(child)
    for key in ("items", "additionalProperties"):
        if isinstance(schema.get(key), dict):
            _strict(schema[key])
    for key in ("allOf", "anyOf", "oneOf"):
        for child in schema.get(key, []):
            _strict(child)
    return schema


def validate(obj: dict[str, Any]) -> None:
    """Raise AssertionError naming the first bad path if `obj` does not fit its CRD."""
    group, _, version = obj["apiVersion"].rpartition("/")
    key = (group, version, obj["kind"])
    assert key in _crds(), f"no CRD here for {obj['apiVersion']} {obj['kind']}"
    assert obj.get("metadata", {}).get("name"), "metadata.name is required"
    body = {k: v for k, v in obj.items() if k not in ("apiVersion", "kind", "metadata")}
    schema = dict(_crds()[key])
    schema.get("properties", {}).pop("metadata", None)
    errors = sorted(
        jsonschema.Draft7Validator(schema).iter_errors(body), key=lambda e: list(e.path)
    )
    if errors:
        first = errors[0]
        path = ".".join(str(p) for p in first.absolute_path)
        raise AssertionError(f"{obj['kind']} {obj['metadata']['name']}: {path}: {first.message}")


def known_kinds() -> list[tuple[str, str, str]]:
    return sorted(_crds())
