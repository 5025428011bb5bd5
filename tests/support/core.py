"""Strict validation of built-in Kubernetes kinds (ConfigMap, PriorityClass, Namespace, ...).

The schema is lightkube-models: msgspec Structs generated from the Kubernetes OpenAPI document
(1.37), one field per API field, with its type. That is the same source kubernetes-validate
packages as JSON Schema (1.37.0: 108 MB installed, one error per object); reading the
Structs keeps the test dependencies at what the gateway already installs.

Strict like `fieldValidation=Strict`: unknown fields, wrong types and nulls are errors; fields
without a default are required. The generated models type string maps (labels, annotations,
ConfigMap data, nodeSelector) as bare `dict`, so those are checked as map[string]string here,
and names, label keys and values get the API server's syntax rules.
"""

from __future__ import annotations

import re
import types
import typing
from datetime import datetime
from typing import Any

import msgspec

from xcli.gateways.kube.api import builtin_model

STRING_MAPS = {"labels", "annotations", "data", "nodeSelector", "stringData"}
_DNS_LABEL = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?"
DNS_SUBDOMAIN = re.compile(rf"^{_DNS_LABEL}(\.{_DNS_LABEL})*$")
_LABEL_NAME = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
_DATA_KEY = re.compile(r"^[-._a-zA-Z0-9]+$")
_RFC3339 = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?Z$")


def validate_core(obj: dict[str, Any]) -> None:
    """Raise AssertionError naming the first problem if `obj` is not a valid built-in object."""
    model = builtin_model(obj["apiVersion"], obj["kind"])
    assert model is not None, f"not a built-in kind: {obj['apiVersion']} {obj['kind']}"
    _check(obj, model, obj["kind"])
    meta = obj.get("metadata") or {}
    name = meta.get("name", "")
    assert DNS_SUBDOMAIN.match(name) and len(name) <= 253, f"bad metadata.name {name!r}"
    for key, value in (meta.get("labels") or {}).items():
        _check_label(key, value)
    if obj["kind"] == "ConfigMap":
        for key in obj.get("data") or {}:
            assert _DATA_KEY.match(key), f"ConfigMap key {key!r} is not [-._a-zA-Z0-9]+"


def _check_label(key: str, value: str) -> None:
    prefix, _, name = key.rpartition("/")
    assert not prefix or (DNS_SUBDOMAIN.match(prefix) and len(prefix) <= 253), f"label {key!r}"
    assert _LABEL_NAME.match(name) and len(name) <= 63, f"label key {key!r}"
    assert value == "" or (_LABEL_NAME.match(value) and len(value) <= 63), f"label {key}={value!r}"


def _check(value: Any, hint: Any, path: str) -> None:
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        options = [a for a in typing.get_args(hint) if a is not type(None)]
        assert value is not None, f"{path}: null"
        assert len(options) == 1, f"{path}: unexpected union {hint}"
        _check(value, options[0], path)
    elif isinstance(hint, type) and issubclass(hint, msgspec.Struct):
        _check_object(value, hint, path)
    elif origin is list or hint is list:
        assert isinstance(value, list), f"{path}: expected a list, got {value!r}"
        for n, item in enumerate(value):
            _check(item, (typing.get_args(hint) or (Any,))[0], f"{path}[{n}]")
    elif hint is dict or origin is dict:
        assert isinstance(value, dict), f"{path}: expected an object, got {value!r}"
        if path.rsplit(".", 1)[-1] in STRING_MAPS:
            for key, item in value.items():
                assert isinstance(item, str), f"{path}.{key}: expected a string, got {item!r}"
    elif hint is bool:
        assert isinstance(value, bool), f"{path}: expected a boolean, got {value!r}"
    elif hint is int:
        assert isinstance(value, int) and not isinstance(value, bool), f"{path}: not an int"
    elif hint is float:
        assert isinstance(value, (int, float)) and not isinstance(value, bool), f"{path}: number"
    elif hint is str:
        assert isinstance(value, str), f"{path}: expected a string, got {value!r}"
    elif hint is datetime:  # metav1.Time / MicroTime: RFC 3339 in UTC, as the API server writes
        assert isinstance(value, str) and _RFC3339.match(value), f"{path}: not RFC 3339: {value!r}"
    elif hint is not Any:
        raise AssertionError(f"{path}: no rule for type {hint}")


def _check_object(value: Any, model: Any, path: str) -> None:
    assert isinstance(value, dict), f"{path}: expected an object, got {value!r}"
    fields = {f.encode_name: f for f in msgspec.structs.fields(model)}
    unknown = sorted(set(value) - set(fields))
    assert not unknown, f"{path}: unknown field(s) {unknown}"
    for name, field in fields.items():
        if name not in value:
            assert not field.required, f"{path}.{name}: required"
            continue
        _check(value[name], field.type, f"{path}.{name}")
