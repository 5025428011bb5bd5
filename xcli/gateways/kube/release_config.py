"""Change a controller's configuration file inside a parsed release manifest (the live side of
K8sInstall's `config_patch`, plan/gke/kueue_config.py).

The file is one YAML document under a key of a ConfigMap of the manifest; `merge` is deep-merged
into it (mappings merge key by key, anything else replaces) and it is written back as YAML. The
controller Deployment's pod template then carries the SHA-256 of the ConfigMap's data: a changed
configuration changes the template, so the Deployment replaces its pods and the controller
starts with the new file; an unchanged one leaves the Deployment as it is.
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Mapping
from typing import Any

import yaml

from xcli.errors import CloudError

Obj = dict[str, Any]


def merged(base: Mapping[str, Any], extra: Mapping[str, Any]) -> Obj:
    """`base` with `extra` deep-merged into it (neither is changed)."""
    out = copy.deepcopy(dict(base))
    for key, value in extra.items():
        old = out.get(key)
        if isinstance(old, Mapping) and isinstance(value, Mapping):
            out[key] = merged(old, value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def _find(objects: list[Obj], kind: str, ref: str) -> Obj | None:
    namespace, _, name = ref.partition("/")
    for obj in objects:
        meta = obj["metadata"]
        if obj["kind"] == kind and (meta.get("namespace"), meta["name"]) == (namespace, name):
            return obj
    return None


def _changed_shape(source: str, what: str) -> CloudError:
    return CloudError(
        f"{source}: {what}", hint="the release manifest changed shape; report this to xcli"
    )


def patch_config(objects: list[Obj], patch: Mapping[str, Any], source: str) -> str:
    """Apply `patch` to the parsed manifest `objects` in place; the new data's SHA-256."""
    configmap = _find(objects, "ConfigMap", str(patch["configmap"]))
    key = str(patch["key"])
    text = ((configmap or {}).get("data") or {}).get(key)
    if configmap is None or not isinstance(text, str):
        raise _changed_shape(source, f"no key {key} in ConfigMap {patch['configmap']}")
    try:
        document = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise _changed_shape(source, f"{key} is not valid YAML: {exc}") from None
    wanted = (patch["api_version"], patch["kind"])
    found = (document or {}).get("apiVersion"), (document or {}).get("kind")
    if not isinstance(document, dict) or found != wanted:
        raise _changed_shape(
            source, f"{key} is {found[0]} {found[1]}, not the {wanted[0]} {wanted[1]} xcli changes"
        )
    configmap["data"][key] = yaml.safe_dump(
        merged(document, patch["merge"]), sort_keys=False, default_flow_style=False
    )
    digest = hashlib.sha256(json.dumps(configmap["data"], sort_keys=True).encode()).hexdigest()
    deployment = _find(objects, "Deployment", str(patch["restart"]))
    if deployment is None:
        raise _changed_shape(source, f"no Deployment {patch['restart']}")
    template = deployment["spec"]["template"]
    annotations = template.setdefault("metadata", {}).setdefault("annotations", {})
    annotations[str(patch["annotation"])] = digest
    return digest
