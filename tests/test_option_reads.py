"""A provider setting is read by name only in its provider's own options builder
(xcli/providers/<name>/options.py, issue 31): everywhere else it is a field of the provider's
frozen options (GkeOptions, QrOptions, LocalOptions), which mypy checks. This test scans the
package for a read of a provider flag by its name (`x["gke_version"]`, `x.get("base_port")`)
and shows, on a copy of the package with one such read added, that the scan fails."""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

from xcli.cli.options import MODULES, SWITCHES, names

REPO = Path(__file__).resolve().parents[1]


def provider_flags() -> set[str]:
    """Every provider flag's name (click's), the request's own switches left out."""
    return {name for group in MODULES if group not in SWITCHES for name in names(group)}


def _builder(path: Path, root: Path) -> bool:
    parts = path.relative_to(root).parts
    return len(parts) == 4 and parts[:2] == ("xcli", "providers") and parts[3] == "options.py"


def _key(node: ast.AST) -> str | None:
    """The constant key of `x[KEY]` or `x.get(KEY, ...)`, else None."""
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
        return node.slice.value if isinstance(node.slice.value, str) else None
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "get"
        and node.args
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
    ):
        return node.args[0].value
    return None


def _receiver(node: ast.AST) -> str:
    target = node.value if isinstance(node, ast.Subscript) else node.func.value  # type: ignore[attr-defined]
    return ast.unparse(target)


# Receivers that hold flag values: the click kwargs and what is built from them. Other mappings
# (API responses, SSH connect options) share a few key names ("network") and are not settings.
_HOLDERS = ("option", "flag", "given", "raw", "extra", "values")


def option_reads(root: Path) -> list[str]:
    """`path:line key` of every read of a provider flag by name outside its options builder."""
    flags = provider_flags()
    found = []
    for path in sorted((root / "xcli").rglob("*.py")):
        if _builder(path, root):
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            key = _key(node)
            if key in flags and any(h in _receiver(node).lower() for h in _HOLDERS):
                found.append(f"{path.relative_to(root)}:{node.lineno} {key}")  # type: ignore[attr-defined]
    return found


def test_no_provider_setting_is_read_by_name_outside_its_builder() -> None:
    assert option_reads(REPO) == []


def test_the_builders_do_read_them() -> None:
    """The scan sees the reads it is meant to forbid: the builders have them."""
    builders = REPO / "xcli" / "providers"
    flags = provider_flags()
    seen = {
        _key(node)
        for path in builders.glob("*/options.py")
        for node in ast.walk(ast.parse(path.read_text()))
    }
    assert {"gke_version", "base_port", "runtime_version", "pathways"} <= seen & flags


def test_a_read_outside_the_provider_fails(tmp_path: Path) -> None:
    shutil.copytree(REPO / "xcli", tmp_path / "xcli", ignore=shutil.ignore_patterns("__pycache__"))
    assert option_reads(tmp_path) == []  # the copy as it is
    target = tmp_path / "xcli" / "plan" / "kueue_objects.py"
    target.write_text(
        target.read_text()
        + "\n\ndef _version(spec: ClusterSpec) -> object:\n"
        + '    return dict(spec.given).get("gke_version")\n'
    )
    found = option_reads(tmp_path)
    assert len(found) == 1 and found[0].startswith("xcli/plan/gke/kueue_objects.py:")
    assert found[0].endswith(" gke_version")
