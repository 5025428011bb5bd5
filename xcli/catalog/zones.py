"""Where each accelerator is offered: zones.json (one row per zone, each with its public page).

    >>> offered_zones("v6e")[:2]
    ('us-central1-b', 'us-east1-d')

`check_zone` refuses, before any call, a zone that does not offer the accelerator, where the
table settles it: in the areas the stored copies of the page list in full (`_covered`: North
America). Elsewhere the copies are cut short, so a zone missing from the table is not evidence
that it lacks the family: `zone_note` says so in the plan instead (issue 36). Only families
with rows are checked: a family without rows (the GPUs today) is not refused anywhere.
`check_flex_start` refuses queued-resource flex-start where Cloud TPU's flex-start page does not
offer it (the `flex_start` table).
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


def covered(zone: str) -> bool:
    """Whether the stored pages list every zone of `zone`'s area (zones.json `_covered`)."""
    return zone.startswith(tuple(_data().get("_covered", {}).get("prefixes", [])))


def zone_note(accel: Accelerator, zone: str) -> str | None:
    """The plan's line for a zone the table cannot settle: outside the covered areas and not
    listed for the family."""
    offered = offered_zones(accel.family)
    if not offered or zone in offered or covered(zone):
        return None
    return (
        f"zone {zone}: the stored copies of Cloud TPU's regions-and-zones page end before its "
        f"area, so xcli cannot tell whether it offers {accel.family}; the zones known to: "
        f"{', '.join(offered)}. GKE refuses the node pool if it does not"
    )


def check_zone(accel: Accelerator, zone: str) -> None:
    """Refuse `zone` when the catalogue lists where `accel`'s family is offered, `zone` is not
    one of those places, and the table is complete for its area (a US zone that does not exist
    at all, like us-east5-z, is refused the same way)."""
    offered = offered_zones(accel.family)
    if not offered or zone in offered or not covered(zone):
        return
    raise UserError(
        f"zone {zone} does not offer {accel.family} ({accel.name}), or does not exist",
        hint=f"use a zone that offers {accel.family}: {', '.join(offered)} "
        f"(`xcli catalog show {accel.name}` names the page each comes from)",
    )


@dataclass(frozen=True)
class FlexRow:
    """A zone where Cloud TPU offers flex-start queued resources for a family."""

    family: str
    zone: str
    use: str  # "training", "serving", or both
    source: str


def flex_start_rows(family: str) -> tuple[FlexRow, ...]:
    table = _data().get("flex_start", {})
    return tuple(
        FlexRow(family, r["zone"], r["use"], table["_source"]) for r in table.get(family, [])
    )


def check_flex_start(accel: Accelerator, zone: str) -> FlexRow:
    """The flex-start row of `accel`'s family in `zone`; refuses families and zones Cloud TPU's
    flex-start page does not list (it names v6e and v5e in four zones)."""
    rows = flex_start_rows(accel.family)
    families = sorted(f for f in _data().get("flex_start", {}) if not f.startswith("_"))
    if not rows:
        raise UserError(
            f"Cloud TPU offers flex-start queued resources for {' and '.join(families)} only, "
            f"not {accel.family} ({accel.name})",
            hint="use --spot, --on-demand or --reservation for this family, or --provider gke",
        )
    for row in rows:
        if row.zone == zone:
            return row
    listed = ", ".join(f"{r.zone} ({r.use})" for r in rows)
    raise UserError(
        f"Cloud TPU offers flex-start for {accel.family} only in {listed}, not in {zone}",
        hint=f"pass --zone {rows[0].zone}, or another capacity for {zone}",
    )
