"""Provider-specific flags of `xcli cluster create`, one module per provider.

Each module defines OPTIONS, a list of click.option decorators. `cluster create` takes the
union; the values of the chosen provider's flags go to ClusterSpec.options, and a flag that
belongs only to another provider is refused with a hint.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

import click

from xcli.errors import UserError

MODULES: dict[str, str] = {
    "gke": "xcli.cli.options.gke",
    "queued-resource": "xcli.cli.options.queued_resource",
    "local": "xcli.cli.options.local",
    "terraform": "xcli.cli.options.terraform",  # shared by gke and queued-resource
    "force": "xcli.cli.options.force",  # gke, and Terraform mode of both
}
SHARED_BY = {"terraform": ("gke", "queued-resource"), "force": ("gke", "queued-resource")}


def _options(group: str) -> list[Callable[[Any], Any]]:
    module = importlib.import_module(MODULES[group])
    return list(module.OPTIONS)


def _dest(decorator: Callable[[Any], Any]) -> str:
    def probe() -> None:
        pass

    decorated = decorator(probe)
    params: list[click.Parameter] = decorated.__click_params__
    return str(params[-1].name)


def provider_options(func: Any) -> Any:
    for group in reversed(list(MODULES)):
        for option in reversed(_options(group)):
            func = option(func)
    return func


def split_options(provider: str, values: Mapping[str, Any]) -> dict[str, Any]:
    """The chosen provider's option values; refuse flags set for another provider."""
    mine: dict[str, Any] = {}
    for group in MODULES:
        owners = SHARED_BY.get(group, (group,))
        for option in _options(group):
            name = _dest(option)
            value = values.get(name)
            if provider in owners:
                mine[name] = value
            elif value not in (None, False, (), [], ""):
                flag = "--" + name.replace("_", "-")
                raise UserError(
                    f"{flag} applies only to --provider {' or '.join(owners)}",
                    hint=f"drop {flag}, or choose --provider {owners[0]}",
                )
    return mine
