"""Where each accelerator is offered: zones.json (one row per zone, each with its public page).

    >>> offered_zones("v6e")[:2]
    ('us-central1-b', 'us-east1-d')

`check_zone` refuses, before any call, a zone that does not offer the accelerator. Only families
with rows are checked: a family without rows (the GPUs today) is not refused anywhere, because
having no data is not evidence that a zone lacks it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any

from xcli.errors import UserError

if TYPE_CHECKING:
    from xcli.catalog.model import Accelerator


@dataclass(frozen=True)
class ZoneRow:
    """One zone offering one family, and the public page that says so."""

    family: str
    zone: str
    source: str
    note: str = ""


@cache
def _data() -> dict[str, Any]:
    text = resources.files("xcli.catalog").joinpath("zones.json").read_text("utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


@cache
def rows(family: str) -> tuple[ZoneRow, ...]:
    """The zone rows of a family (TPU family name or GPU type); () where none are recorded."""
    listed = _data().get("tpu", {}).get(family) or _data().get("gpu", {}).get(family) or []
    return tuple(ZoneRow(family, r["zone"], r["source"], r.get("note", "")) for r in listed)


def offered_zones(family: str) -> tuple[str, ...]:
    return tuple(r.zone for r in rows(family))


def families_with_zones() -> list[str]:
    return [*_data().get("tpu", {}), *_data().get("gpu", {})]


def checked_regions() -> tuple[str, ...]:
    """The region prefixes whose rows were read in full from the pages (`_checked_regions` in
    zones.json). A zone outside them is not refused: the stored pages were cut off there, and a
    row missing for want of a page is not evidence that the zone lacks the accelerator."""
    return tuple(_data().get("_checked_regions", ()))


def check_zone(accel: Accelerator, zone: str) -> None:
    """Refuse `zone` when the catalogue lists where `accel`'s family is offered, the table covers
    `zone`'s region, and `zone` is not one of those places."""
    offered = offered_zones(accel.family)
    if not offered or zone in offered or not zone.startswith(checked_regions()):
        return
    raise UserError(
        f"zone {zone} does not offer {accel.family} ({accel.name}), or does not exist",
        hint=f"use a zone that offers {accel.family}: {', '.join(offered)} "
        f"(`xcli catalog show {accel.name}` names the page each comes from)",
    )
