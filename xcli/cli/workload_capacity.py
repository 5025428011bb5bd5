"""`workload create --on-demand | --spot | --reservation R`: on a node auto-provisioning cluster,
the capacity GKE provisions the workload's pools on (XPK's flags and rule: "By default, the
capacity type will match with what the cluster was created with", AI-Hypercomputer/xpk@367c838
docs/usage/autoprovisioning.md). Click only; the rule is in xcli/workload/jobset/plan.py."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from xcli.spec import Capacity

OPTIONS: list[Callable[[Any], Any]] = [
    click.option(
        "--on-demand",
        "capacity_on_demand",
        is_flag=True,
        help="Auto-provisioning clusters: pools of on-demand VMs (default: the cluster's).",
    ),
    click.option(
        "--spot",
        "capacity_spot",
        is_flag=True,
        help="Auto-provisioning clusters: pools of Spot VMs.",
    ),
    click.option(
        "--reservation",
        "capacity_reservation",
        metavar="R",
        help="Auto-provisioning clusters: pools from reservation NAME or "
        "projects/P/reservations/R.",
    ),
]
NAMES = ["capacity_on_demand", "capacity_spot", "capacity_reservation"]


def capacity_from(flags: dict[str, Any], project: Callable[[], str | None]) -> Capacity | None:
    """The capacity asked for, None for the cluster's; refuses two at once or a bad name.
    `project` is read only for a reservation (a local cluster has none)."""
    from xcli.errors import UserError
    from xcli.spec import check_reservation

    reservation = flags.pop("capacity_reservation", None)
    chosen = [
        name
        for name, given in (
            ("--on-demand", flags.pop("capacity_on_demand", False)),
            ("--spot", flags.pop("capacity_spot", False)),
            ("--reservation", reservation is not None),
        )
        if given
    ]
    if len(chosen) > 1:
        raise UserError(f"{' and '.join(chosen)} ask for two capacities", hint="pass one of them")
    if not chosen:
        return None
    if chosen[0] == "--reservation":
        if not str(reservation).strip() or "," in str(reservation) or reservation == "-":
            raise UserError(
                f"--reservation {reservation!r} names no single reservation",
                hint="pass one NAME or projects/P/reservations/R",
            )
        return Capacity("reservation", reservation=check_reservation(str(reservation), project()))
    return Capacity("on-demand" if chosen[0] == "--on-demand" else "spot")
