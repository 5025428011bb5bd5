"""Flags of `xcli cluster create` that only the queued-resource provider takes.

Files named on the command line (--metadata-from-file) are read here, so the core gets values;
a missing file is a one-line UserError before anything is planned.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from xcli import formats
from xcli.errors import UserError
from xcli.user_files import KIB, read_text

# "The maximum size of a single metadata value is 256 KB" (and 512 KB for all of them):
# https://cloud.google.com/compute/docs/metadata/setting-custom-metadata#limitations
METADATA_VALUE_LIMIT = 256 * KIB


def _read_files(ctx: click.Context, param: click.Parameter, values: Any) -> tuple[Any, ...]:
    out = []
    for item in values or ():
        key, sep, name = str(item).partition("=")
        if not sep or not key or not name:
            raise UserError(
                f"--metadata-from-file {item!r} is not KEY=FILE",
                hint="e.g. --metadata-from-file startup-script=setup.sh",
            )
        text = read_text(
            name,
            f"--metadata-from-file {key}=",
            METADATA_VALUE_LIMIT,
            "Compute Engine's limit for one metadata value",
        )
        out.append((key, text))
    return tuple(out)


OPTIONS: list[Callable[[Any], Any]] = [
    click.option(
        "--runtime-version",
        metavar="V",
        callback=formats.flag_callback(formats.runtime_version),
        help="TPU VM software version (default: the catalogue's).",
    ),
    click.option("--internal-ips", is_flag=True, help="No external IPs on the TPU VMs."),
    click.option(
        "--service-account",
        metavar="EMAIL",
        callback=formats.flag_callback(formats.service_account),
        help="Service account of the TPU VMs.",
    ),
    click.option(
        "--scopes",
        multiple=True,
        metavar="S[,S]",
        callback=formats.flag_callback(formats.scope),
        help="OAuth scopes of the account.",
    ),
    click.option("--labels", multiple=True, metavar="K=V[,K=V]", help="Labels on the TPU VMs."),
    click.option("--tags", multiple=True, metavar="T[,T]", help="Network tags of the TPU VMs."),
    click.option("--metadata", multiple=True, metavar="K=V[,K=V]", help="VM metadata."),
    click.option(
        "--metadata-from-file",
        multiple=True,
        metavar="K=FILE",
        callback=_read_files,
        help="VM metadata from a file, e.g. startup-script=setup.sh.",
    ),
    click.option(
        "--valid-until-duration",
        metavar="D",
        help="Give up if not provisioned within D (with --valid-after-time: D after it).",
    ),
    click.option("--valid-after-duration", metavar="D", help="Do not provision before D from now."),
    click.option(
        "--valid-after-time", metavar="TIME", help="Do not provision before TIME (RFC 3339)."
    ),
    click.option(
        "--ssh-key",
        metavar="FILE",
        help="Private SSH key to authorize on the VMs (default: ~/.ssh/xcli_ed25519, created).",
    ),
    click.option(
        "--ssh-user", metavar="USER", help="Login user for that key (default: your user name)."
    ),
    click.option(
        "--os-login",
        is_flag=True,
        help="The VMs use OS Login: import the key into your OS Login profile instead of "
        "ssh-keys metadata (implied by --metadata enable-oslogin=TRUE).",
    ),
    click.option(
        "--async",
        "async_",
        is_flag=True,
        help="Return once the request is accepted; wait later with `xcli cluster wait`.",
    ),
]
