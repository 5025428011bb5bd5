"""Field-by-field difference of two Kubernetes objects: flattened paths, list items keyed by
their `name` where they have one (containers, volumes, env), so order does not matter."""

from __future__ import annotations

import re
from typing import Any


def flatten(value: Any, path: str = "") -> dict[str, Any]:
    if isinstance(value, dict):
        flat: dict[str, Any] = {}
        for key, item in value.items():
            flat |= flatten(item, f"{path}.{key}" if path else str(key))
        return flat or {path: {}}
    if (
        isinstance(value, list)
        and value
        and all(isinstance(v, dict) and "name" in v for v in value)
    ):
        flat = {}
        for item in value:
            flat |= flatten(item, f"{path}[{item['name']}]")
        return flat
    if isinstance(value, list) and value and any(isinstance(v, (dict, list)) for v in value):
        flat = {}
        for n, item in enumerate(value):
            flat |= flatten(item, f"{path}[{n}]")
        return flat
    return {path: value}


def differences(
    ours: dict[str, Any], theirs: dict[str, Any], under: tuple[str, ...]
) -> list[tuple[str, Any, Any]]:
    """(path, ours, theirs) for every leaf under one of `under` that differs or exists on one
    side only (missing is None)."""
    mine, up = flatten(ours), flatten(theirs)
    paths = sorted(p for p in set(mine) | set(up) if any(p.startswith(u) for u in under))
    return [(p, mine.get(p), up.get(p)) for p in paths if mine.get(p) != up.get(p)]


def matches(pattern: str, path: str) -> bool:
    """`*` matches anything; every other character (brackets included) is literal."""
    return re.fullmatch(re.escape(pattern).replace(r"\*", ".*"), path) is not None


def unexplained(
    diffs: list[tuple[str, Any, Any]], chosen: dict[str, str]
) -> list[tuple[str, Any, Any]]:
    """The differences no pattern of `chosen` (see `matches`) explains."""
    return [d for d in diffs if not any(matches(pattern, d[0]) for pattern in chosen)]
