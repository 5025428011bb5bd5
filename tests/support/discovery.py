"""Check REST requests against Google's discovery documents.

The documents are the ones `google-api-python-client` ships in
`googleapiclient/discovery_cache/documents/`, read from the wheel pinned exactly in the `test`
extra of pyproject.toml (so a revision changes only when the pin does). Every document there is
available by its file name without `.json` (`compute.v1`, `file.v1`, `storage.v1`, ...).

`check_request(api_id, method, url, body)` fails when the HTTP method or URL path does not fit
the method's path template, a query parameter is not one the method takes, or the body uses a
field the schema does not name, a wrong JSON type, or an enum value the schema does not list.
"""

from __future__ import annotations

import json
import re
from functools import cache
from importlib import resources
from typing import Any
from urllib.parse import parse_qsl, urlsplit

# Only the tiny `googleapiclient` and `discovery_cache` packages are imported to locate the
# folder, not the client library itself.
DOCUMENTS = resources.files("googleapiclient.discovery_cache") / "documents"

# Short names some tests use, and the order in which `doc_for` tries the versions of an API
# (GA first). Any other document is named by its file name, e.g. "compute.beta".
ALIASES = {
    "container": "container.v1",
    "tpu.v2": "tpu.v2",
    "tpu.v2alpha1": "tpu.v2alpha1",
    "compute": "compute.v1",
    "oslogin": "oslogin.v1",
}

_INT_FORMATS = {"int32", "uint32"}
_STRING_INT_FORMATS = {"int64", "uint64"}


@cache
def available() -> tuple[str, ...]:
    """Every discovery document in the wheel, by name ("compute.v1", "tpu.v2", ...)."""
    names = (e.name for e in DOCUMENTS.iterdir() if e.name.endswith(".json"))
    return tuple(sorted(n.removesuffix(".json") for n in names))


def _file(name: str) -> str:
    full = ALIASES.get(name, name)
    assert full in available(), f"no discovery document {full!r} in google-api-python-client"
    return f"{full}.json"


def document(name: str) -> dict[str, Any]:
    return _load(_file(name))


@cache
def _load(file: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((DOCUMENTS / file).read_text(encoding="utf-8"))
    return data


def _methods(node: dict[str, Any]) -> dict[str, dict[str, Any]]:
    found: dict[str, dict[str, Any]] = {}
    for method in node.get("methods", {}).values():
        found[method["id"]] = method
    for child in node.get("resources", {}).values():
        found.update(_methods(child))
    return found


def methods(doc: str) -> dict[str, dict[str, Any]]:
    return _all_methods(_file(doc))


@cache
def _all_methods(file: str) -> dict[str, dict[str, Any]]:
    return _methods(_load(file))


def doc_for(api_id: str) -> str:
    """container.projects.locations.clusters.create -> 'container'; tpu.* by version (GA first).

    The method id starts with the API's name, so only that API's documents are read: the
    aliases first, in their order, then its other versions (alpha and beta ones last).
    """
    api = api_id.split(".", 1)[0]
    names = [n for n, full in ALIASES.items() if full.split(".", 1)[0] == api]
    covered = {ALIASES[n] for n in names}
    others = [n for n in available() if n.split(".", 1)[0] == api and n not in covered]
    names += sorted(others, key=lambda n: ("alpha" in n or "beta" in n, n))
    for name in names:
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
    assert spec is not None, f"{api_id} not in {_file(name)}"
    wanted = spec["httpMethod"]
    assert method == wanted, f"{api_id}: {method} but the API wants {wanted}"
    parts = urlsplit(url)
    base = urlsplit(d["rootUrl"])
    # or one of the locational endpoints the document lists (aiplatform: REGION-aiplatform...)
    hosts = {base.netloc, *(urlsplit(e["endpointUrl"]).netloc for e in d.get("endpoints", []))}
    assert parts.netloc in hosts, f"{url}: host should be {base.netloc} or a listed endpoint"
    # Method paths are relative to the service path ("compute/v1/" for Compute Engine; empty
    # for the APIs whose paths carry the version, like "v1/projects/...").
    path = parts.path.lstrip("/")
    service = d.get("servicePath", "")
    assert path.startswith(service), f"{url}: path should start with /{service}"
    path = path[len(service) :]
    assert _path_regex(spec["path"]).match(path) or _path_regex(
        spec.get("flatPath", spec["path"])
    ).match(path), f"{api_id}: path {path} does not fit {spec['path']}"
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
