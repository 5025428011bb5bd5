"""Boolean environment variables (XCLI_DRY_RUN, XCLI_YES, XCLI_DEBUG), read one strict way.

A variable that is set to something that is not a clear yes or no is an error, never "off":
`XCLI_DRY_RUN=maybe` must not start a live run. Empty counts as unset.
"""

from __future__ import annotations

import os

from xcli.errors import UserError

TRUE = ("1", "true", "yes", "on")
FALSE = ("0", "false", "no", "off")


def env_bool(name: str) -> bool:
    """True/False from 1/0, true/false, yes/no, on/off (any case); unset or empty is False."""
    raw = os.environ.get(name, "")
    value = raw.lower()
    if value in TRUE:
        return True
    if value in FALSE or raw == "":
        return False
    raise UserError(
        f"environment variable {name}={raw!r} is neither true nor false",
        hint=f"set {name} to 1 or 0 (also true/false, yes/no, on/off), or unset it",
    )
