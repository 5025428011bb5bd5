"""`cluster create --terraform DIR`: the CLI side of Terraform mode, which flags were given.

The use cases are in xcli/app/terraform_mode.py; they ask through the dependencies
(cli/wiring.py) which provider flags Terraform mode cannot write, since only the CLI knows its
flags and their defaults.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import click


def unsupported_flags(
    values: Mapping[str, Any],
    decorators: Sequence[Callable[[Any], Any]],
    supported: frozenset[str] | set[str],
) -> list[str]:
    """The flags among `decorators` set to a non-default value that Terraform mode cannot write."""
    params: list[click.Parameter] = []
    for decorator in decorators:

        def probe() -> None:
            pass

        params.append(decorator(probe).__click_params__[-1])
    # The values the command line gives when none of these flags is passed.
    defaults = click.Command("probe", params=params).make_context("probe", []).params
    return [
        str(p.opts[0])
        for p in params
        if p.name not in supported and p.name in values and values[p.name] != defaults[p.name]
    ]
