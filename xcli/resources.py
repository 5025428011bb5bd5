"""One locator for the files that ship beside the code: templates/ and terraform/.

In a wheel they are packaged as xcli/_resources/<name>; in a source checkout (editable install,
or running from the repository) they are the top-level folders of the repository.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from xcli.errors import InternalError

_KINDS = ("templates", "terraform")


@cache
def resource_dir(kind: str) -> Path:
    """Return the folder holding the shipped `kind` files ("templates" or "terraform")."""
    if kind not in _KINDS:
        raise InternalError(f"unknown resource folder {kind!r}")
    package = Path(__file__).resolve().parent
    for candidate in (package / "_resources" / kind, package.parent / kind):
        if candidate.is_dir():
            return candidate
    raise InternalError(
        f"the {kind}/ folder is missing from this installation",
        hint="reinstall xcli; a wheel built without its resources is broken",
    )
