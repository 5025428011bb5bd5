"""Offline checks of Terraform files: parse with python-hcl2, walk against provider schemas.

The schemas are the real `terraform providers schema -json` dump of hashicorp/google 6.50.0 (a
subset) and a google-beta 6.50.0 tree derived from the cdktf bindings, both in
tests/data/terraform/ (sources: tests/data/SOURCES.md). A resource with `provider = google-beta`
is checked against the beta tree, every other one against the GA dump.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import hcl2
from hcl2 import SerializationOptions

from tests.conftest import DATA

GA = "registry.terraform.io/hashicorp/google"
BETA = "registry.terraform.io/hashicorp/google-beta"
META = {"provider", "count", "for_each", "depends_on", "lifecycle"}


@cache
def provider_schemas() -> dict[str, dict[str, Any]]:
    """provider address -> {"resource_schemas": ..., "data_source_schemas": ...}."""
    folder = DATA / "terraform"
    ga = json.loads((folder / "google-6.50.0-schema-subset.json").read_text())
    beta = json.loads((folder / "google-beta-6.50.0-derived-subset.json").read_text())
    return {GA: ga["provider_schemas"][GA], BETA: beta["provider_schemas"][BETA]}


def parse(path: Path) -> dict[str, Any]:
    """A .tf file as python-hcl2 8 gives it, with string quotes stripped."""
    text = path.read_text(encoding="utf-8")
    options = SerializationOptions(strip_string_quotes=True)
    parsed: dict[str, Any] = hcl2.loads(text, serialization_options=options)
    return parsed


def _label(name: str) -> str:
    return name.strip('"')


def check_file(path: Path) -> list[str]:
    """Every problem found in one .tf file (empty when it matches the schemas)."""
    doc = parse(path)
    errors: list[str] = []
    for kind, section in (("resource", "resource_schemas"), ("data", "data_source_schemas")):
        for entry in doc.get(kind, []):
            for rtype, named in entry.items():
                for name, body in named.items():
                    if name.startswith("__"):
                        continue
                    where = f"{path.name}: {kind} {_label(rtype)}.{_label(name)}"
                    errors += _check_resource(_label(rtype), body, section, where)
    return errors


def _check_resource(rtype: str, body: dict[str, Any], section: str, where: str) -> list[str]:
    provider = BETA if str(body.get("provider", "")).startswith("google-beta") else GA
    schemas = provider_schemas()[provider].get(section, {})
    if rtype not in schemas:
        return [f"{where}: type {rtype!r} is not in the {provider.rsplit('/', 1)[1]} schema"]
    errors: list[str] = []
    check_body(body, schemas[rtype]["block"], where, errors, top=True)
    return errors


def check_body(
    body: dict[str, Any], block: dict[str, Any], path: str, errors: list[str], top: bool = False
) -> None:
    """Walk one block body against its schema block, appending what does not fit."""
    attrs = block.get("attributes", {})
    blocks = block.get("block_types", {})
    seen: set[str] = set()
    for key, value in body.items():
        if key.startswith("__"):
            continue
        if key == "dynamic":
            for dyn in value if isinstance(value, list) else [value]:
                for raw, spec in dyn.items():
                    name = _label(raw)
                    if name.startswith("__"):
                        continue
                    seen.add(name)
                    if name not in blocks:
                        errors.append(f"{path}: unknown dynamic block {name!r}")
                        continue
                    for content in spec.get("content", []):
                        check_body(content, blocks[name]["block"], f"{path}.{name}", errors)
            continue
        seen.add(key)
        if key in attrs:
            attr = attrs[key]
            if attr.get("computed") and not (attr.get("optional") or attr.get("required")):
                errors.append(f"{path}.{key}: read-only attribute")
        elif key in blocks:
            for item in value if isinstance(value, list) else [value]:
                check_body(item, blocks[key]["block"], f"{path}.{key}", errors)
        elif not (top and key in META):
            errors.append(f"{path}: unknown argument {key!r}")
    errors += [
        f"{path}: missing required {name!r}"
        for name, attr in attrs.items()
        if attr.get("required") and name not in seen and name != "id"
    ]
    errors += [
        f"{path}: missing block {name!r}"
        for name, spec in blocks.items()
        if spec.get("min_items") and name not in seen
    ]
