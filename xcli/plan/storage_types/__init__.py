"""The one typed registry of storage types: name -> its unit (one module each, the same shape:
xcli/plan/storage_types/base.py). Adding a type is its module plus one entry in UNITS.

The units are pure (what to create, read, mount), so the storage command (xcli/storage/) and
the workloads that mount a storage (xcli/workload/) can both look a type up here.
"""

from __future__ import annotations

import difflib

from xcli.errors import UserError
from xcli.plan.storage_types.base import NetworkNeeds, StorageType, Volume
from xcli.plan.storage_types.disk import HYPERDISK_ML, PD
from xcli.plan.storage_types.filestore import FILESTORE
from xcli.plan.storage_types.gcsfuse import GCSFUSE
from xcli.plan.storage_types.lustre import LUSTRE_TYPE
from xcli.plan.storage_types.parallelstore import PARALLELSTORE_TYPE

__all__ = ["UNITS", "NetworkNeeds", "StorageType", "Volume", "find", "names", "unit"]

UNITS: dict[str, StorageType] = {
    t.name: t for t in (GCSFUSE, FILESTORE, LUSTRE_TYPE, PARALLELSTORE_TYPE, PD, HYPERDISK_ML)
}


def names() -> tuple[str, ...]:
    """Every type, in registry order (the `--type` help and hints)."""
    return tuple(UNITS)


# XPK's storage type names (AI-Hypercomputer/xpk 367c838253be src/xpk/core/storage.py:46-50),
# taken on every storage command: the same types under xcli's names
XPK_NAMES = {"gcpfilestore": "filestore"}


def unit(name: str) -> StorageType:
    """The type `name` (as the user gave it: an unknown one is a user error, did-you-mean)."""
    name = XPK_NAMES.get(name, name)
    if name in UNITS:
        return UNITS[name]
    close = difflib.get_close_matches(name, list(UNITS), n=1)
    hint = f"did you mean {close[0]}?" if close else f"types: {', '.join(UNITS)}"
    raise UserError(f"unknown storage type {name!r}", hint=hint)


def find(name: str) -> StorageType | None:
    """The type of a record read back (None: a type this xcli does not know)."""
    return UNITS.get(name)
