"""`xcli catalog list|show`: the accelerator catalogue, read-only and offline."""

from __future__ import annotations

import click

from xcli.cli import complete
from xcli.cli.common import Common, emit, local_options
from xcli.cli.table import print_table


@click.group()
def catalog() -> None:
    """Look up TPU and GPU shapes: topology, chips, VMs, machine types, peak figures.

    \b
    Examples:
      xcli catalog list --family v6e
      xcli catalog show v5p-4x4x4 --output json
    """


@catalog.command("list")
@click.option(
    "--family",
    metavar="F",
    help="Only this family: v4, v5e, v5p, v6e, tpu7x, h100-80gb ...",
    shell_complete=complete.families,
)
@local_options
def list_(family: str | None, common: Common) -> None:
    """List every accelerator by its canonical (count-form) name."""
    from xcli.catalog import all_names, family_names, lookup
    from xcli.errors import UserError

    if family is not None and family not in family_names():
        raise UserError(f"unknown family {family!r}", hint="families: " + ", ".join(family_names()))
    accels = [lookup(name) for name in all_names(family)]
    if common.output != "text":
        emit(common.output, [a.to_dict() for a in accels])
        return
    rows = [
        [
            a.name,
            a.topology or "-",
            str(a.chips),
            str(a.vms_per_slice),
            str(a.chips_per_vm),
            a.machine_type,
            a.gke_accelerator,
        ]
        for a in accels
    ]
    print_table(["NAME", "TOPOLOGY", "CHIPS", "VMS", "CHIPS/VM", "MACHINE TYPE", "GKE LABEL"], rows)


@catalog.command("show")
@click.argument("name", shell_complete=complete.accelerators)
@local_options
def show(name: str, common: Common) -> None:
    """Show one accelerator, by count form (v6e-256) or topology form (v6e-16x16).

    \b
    Examples:
      xcli catalog show v6e-256
      xcli catalog show h100-80gb-8 --output json
    """
    from xcli.catalog import lookup
    from xcli.catalog.zones import rows

    accel = lookup(name)
    data = accel.to_dict()
    # where the family is offered, each zone with the public page that lists it
    data["zones"] = {
        r.zone: r.source + (f" ({r.note})" if r.note else "") for r in rows(accel.family)
    }
    if common.output != "text":
        emit(common.output, data)
        return
    for key, value in data.items():
        if isinstance(value, dict) and "value" in value:
            note = f" ({value['note']})" if value.get("note") else ""
            value = f"{value['value']:g} {value['unit']}{note}  [{value['source']}]"
        elif isinstance(value, dict):
            value = ", ".join(f"{k}: {v}" for k, v in value.items())
        click.echo(f"{key:24}{'-' if value is None else value}")
