"""The accelerator catalogue: look up a TPU or GPU by name, in either name form.

    >>> lookup("v6e-16x16").name
    'v6e-256'

Facts live in accelerators.json (shipped in the wheel); this package holds the rules.
"""

from __future__ import annotations

from xcli.catalog.model import Accelerator, Figure
from xcli.catalog.store import all_names, families, family_names, lookup, published_busbw

__all__ = [
    "Accelerator",
    "Figure",
    "all_names",
    "families",
    "family_names",
    "lookup",
    "published_busbw",
]
