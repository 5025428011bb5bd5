"""Every distribution xcli imports is a declared dependency, and every declared one is used.

A module that works only because another package happens to pull its distribution in breaks the
day that package stops doing so; this reads every `import` in xcli/ (lazy ones included) and maps
each module to the installed distribution that ships its file.
"""

from __future__ import annotations

import ast
import re
import sys
from functools import cache
from importlib import metadata
from pathlib import Path

from tests.conftest import REPO


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def imported_modules(root: Path) -> dict[str, str]:
    """Dotted module name -> first file that imports it (absolute imports only)."""
    found: dict[str, str] = {}
    for path in sorted(root.rglob("*.py")):
        where = str(path.relative_to(root.parent))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    found.setdefault(alias.name, where)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                # `from google.cloud import tpu_v2` imports the module google.cloud.tpu_v2
                for alias in node.names:
                    found.setdefault(f"{node.module}.{alias.name}", where)
    return found


@cache
def _top_level() -> dict[str, list[str]]:
    return dict(metadata.packages_distributions())


@cache
def _files(dist: str) -> frozenset[str]:
    return frozenset(str(f) for f in metadata.distribution(dist).files or ())


def distribution_of(module: str) -> str | None:
    """The installed distribution shipping `module` (or its nearest parent that is a file of
    one); None for the standard library. Namespace packages (google, google.cloud) are resolved
    by the file of the module itself, not by the shared top-level name."""
    top = module.split(".")[0]
    if top in sys.stdlib_module_names:
        return None
    candidates = _top_level().get(top, [])
    parts = module.split(".")
    for n in range(len(parts), 0, -1):
        base = "/".join(parts[:n])
        for dist in candidates:
            if {f"{base}.py", f"{base}/__init__.py"} & _files(dist):
                return _normal(dist)
    raise AssertionError(f"{module}: no installed distribution ships it")


def declared() -> set[str]:
    text = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    block = text.split("\ndependencies = [", 1)[1].split("\n]", 1)[0]
    names = re.findall(r'^\s*"([A-Za-z0-9][A-Za-z0-9._-]*)', block, flags=re.M)
    return {_normal(n) for n in names}


def test_imports_and_declared_dependencies_agree() -> None:
    used: dict[str, str] = {}
    for module, where in imported_modules(REPO / "xcli").items():
        if module.split(".")[0] == "xcli":
            continue
        dist = distribution_of(module)
        if dist is not None:
            used.setdefault(dist, f"{module} in {where}")
    undeclared = {d: why for d, why in used.items() if d not in declared()}
    assert undeclared == {}, "imported but not in [project].dependencies"
    assert declared() - set(used) == set(), "declared but never imported by xcli/"


def test_the_mapping_tells_namespace_packages_apart() -> None:
    assert distribution_of("google.protobuf.json_format") == "protobuf"
    assert distribution_of("google.api_core.exceptions") == "google-api-core"
    assert distribution_of("google.cloud.tpu_v2") == "google-cloud-tpu"
    assert distribution_of("yaml") == "pyyaml"
    assert distribution_of("json") is None
    assert declared() >= {"click", "lightkube", "httpx2"}
