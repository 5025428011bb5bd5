"""`xcli doctor`: credentials, APIs, quota and zone, each one line with its fix (reads only)."""

from __future__ import annotations

from dataclasses import asdict

import click

from xcli.cli import complete
from xcli.cli.common import Common, change_options, emit
from xcli.cli.providers import choice


@click.command("doctor")
@click.option("--provider", type=choice(), default="gke", show_default=True)
@click.option(
    "--tpu-type",
    metavar="T",
    help="Also check quota and zone for this TPU shape, e.g. v6e-256.",
    shell_complete=complete.accelerators,
)
@click.option(
    "--device-type",
    metavar="T",
    help="Also check quota and zone for this GPU shape, e.g. h100-80gb-8.",
    shell_complete=complete.accelerators,
)
@change_options
def doctor(provider: str, tpu_type: str | None, device_type: str | None, common: Common) -> int:
    """Check what `cluster create` will need: which credentials google-auth finds and whose they
    are, whether the provider's APIs are enabled, the region's quota for the accelerator, and
    whether the zone offers it. Reads only; exits 1 when a check fails.

    \b
    Examples:
      xcli doctor --tpu-type v6e-256 --zone us-east5-b
      xcli doctor --provider queued-resource --tpu-type v5litepod-16 --output json
      xcli doctor --device-type h100-80gb-8 --dry-run
    """
    from xcli.app import doctor as use_case
    from xcli.cli.wiring import deps, doctor_handlers

    request = use_case.DoctorRequest(provider, tpu_type, device_type, common)
    checks = use_case.run(request, deps(common), doctor_handlers)
    if checks is None:  # --dry-run: the reads were printed
        return 0
    if common.output != "text":
        emit(common.output, {"ok": all(c.ok is not False for c in checks),
                             "checks": [asdict(c) for c in checks]})  # fmt: skip
    else:
        for line in use_case.render_text(checks):
            click.echo(line)
    return 1 if any(c.ok is False for c in checks) else 0
