"""Check REST requests against Google's discovery documents in ../shared/schemas/discovery/.

`check_request(api_id, method, url, body)` fails when the HTTP method or URL path does not fit
the method's path template, a query parameter is not one the method takes, or the body uses a
field the schema does not name, a wrong JSON type, or an enum value the schema does not list.
"""

from __future__ import annotations

import json
import re
from functools import cache
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from tests.conftest import SCHEMAS

DOCS = {
    "container": "container.v1.json",
    "tpu.v2": "tpu.v2.json",
    "tpu.v2alpha1": "tpu.v2alpha1.json",
}

# query parameters every Google API method accepts (the discovery document's top-level list)
_INT_FORMATS = {"int32", "uint32"}
_STRING_INT_FORMATS = {"int64", "uint64"}


@cache
def document(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((SCHEMAS / "discovery" / DOCS[name]).read_text())
    return data


def _methods(node: dict[str, Any]) -> dict[str, dict[str, Any]]:
    found: dict[str, dict[str, Any]] = {}
    for method in node.get("methods", {}).values():
        found[method["id"]] = method
    for child in node.get("resources", {}).values():
        found.update(_methods(child))
    return found


@cache
def methods(doc: str) -> dict[str, dict[str, Any]]:
    return _methods(document(doc))


def doc_for(api_id: str) -> str:
    """container.projects.locations.clusters.create -> 'container'; tpu.* by version prefix."""
    for name in DOCS:
        if api_id in methods(name):
            return name
    raise AssertionError(f"{api_id} is not a method of any discovery document here")


def _path_regex(template: str) -> re.Pattern[str]:
    out = ""
    for part in re.split(r"(\{\+?[^}]+\})", template):
        if part.startswith("{+"):
            out += r"(?:[^?]+)"
        elif part.startswith("{"):
            out += r"(?:[^/?]+)"
        else:
            out += re.escape(part)
    return re.compile("^" + out + "$")


def check_request(
    api_id: str, method: str, url: str, body: Any = None, *, doc: str | None = None
) -> None:
    name = doc or doc_for(api_id)
    d = document(name)
    spec = methods(name).get(api_id)
    assert spec is not None, f"{api_id} not in {DOCS[name]}"
    wanted = spec["httpMethod"]
    assert method == wanted, f"{api_id}: {method} but the API wants {wanted}"
    parts = urlsplit(url)
    base = urlsplit(d["rootUrl"])
    assert parts.netloc == base.netloc, f"{url}: host should be {base.netloc}"
    path = parts.path.lstrip("/")
    assert _path_regex(spec["path"]).match(path) or _path_regex(spec["flatPath"]).match(path), (
        f"{api_id}: path {path} does not fit {spec['path']}"
    )
    allowed = {k for k, v in spec.get("parameters", {}).items() if v["location"] == "query"}
    allowed |= set(d.get("parameters", {}))
    for key, value in parse_qsl(parts.query, keep_blank_values=True):
        assert key in allowed, f"{api_id}: query parameter {key!r} is not one the method takes"
        param = spec.get("parameters", {}).get(key)
        if param and "enum" in param:
            assert value in param["enum"], f"{api_id}: {key}={value!r} not in {param['enum']}"
    if "request" in spec:
        assert body is not None, f"{api_id} takes a request body"
        check_value(name, {"$ref": spec["request"]["$ref"]}, body, api_id)
    else:
        assert body in (None, {}), f"{api_id} takes no request body"


def check_value(doc: str, schema: dict[str, Any], value: Any, where: str) -> None:
    """Validate a JSON value against a discovery schema fragment, naming the bad path."""
    schemas = document(doc)["schemas"]
    if "$ref" in schema:
        schema = schemas[schema["$ref"]]
    kind = schema.get("type")
    if kind == "object" and "properties" in schema:
        assert isinstance(value, dict), f"{where}: expected an object, got {value!r}"
        for key, item in value.items():
            assert key in schema["properties"], (
                f"{where}: field {key!r} is not in {schema.get('id', 'the schema')}"
            )
            check_value(doc, schema["properties"][key], item, f"{where}.{key}")
    elif kind == "object" and "additionalProperties" in schema:
        assert isinstance(value, dict), f"{where}: expected a map, got {value!r}"
        for key, item in value.items():
            check_value(doc, schema["additionalProperties"], item, f"{where}[{key}]")
    elif kind == "object":
        assert isinstance(value, dict), f"{where}: expected an object, got {value!r}"
    elif kind == "array":
        assert isinstance(value, list), f"{where}: expected a list, got {value!r}"
        for n, item in enumerate(value):
            check_value(doc, schema["items"], item, f"{where}[{n}]")
    elif kind == "string":
        fmt = schema.get("format")
        if fmt in _STRING_INT_FORMATS:
            assert isinstance(value, (str, int)) and str(value).lstrip("-").isdigit(), (
                f"{where}: {fmt} must be an integer string, got {value!r}"
            )
        elif fmt == "google-duration":
            assert isinstance(value, str) and re.match(r"^\d+(\.\d+)?s$", value), (
                f"{where}: durations are written like '3600s', got {value!r}"
            )
        else:
            assert isinstance(value, str), f"{where}: expected a string, got {value!r}"
        if "enum" in schema:
            assert value in schema["enum"], f"{where}: {value!r} is not one of {schema['enum']}"
    elif kind == "integer":
        assert isinstance(value, int) and not isinstance(value, bool), (
            f"{where}: expected an integer, got {value!r}"
        )
    elif kind == "number":
        assert isinstance(value, (int, float)), f"{where}: expected a number, got {value!r}"
    elif kind == "boolean":
        assert isinstance(value, bool), f"{where}: expected true/false, got {value!r}"
    elif kind == "any" or kind is None:
        return
