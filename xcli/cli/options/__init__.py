"""Provider-specific flags of `xcli cluster create`, one module per provider.

Each module defines OPTIONS, a list of click.option decorators. `cluster create` takes the
union; a flag that belongs only to another provider is refused with a hint. The generic
switches (the terraform and force groups) become fields of the CreateRequest; the values of the
chosen provider's own flags go to its options builder (Registry.options), which types them.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

import click

from xcli.errors import UserError
from xcli.providers import DEFAULT

# One module per registered provider, named after it (cli/options/<provider>.py), then the
# groups several providers share, owned as their capabilities say.
MODULES: dict[str, str] = {
    **{name: "xcli.cli.options." + name.replace("-", "_") for name in DEFAULT},
    "terraform": "xcli.cli.options.terraform",
    "force": "xcli.cli.options.force",
    "network": "xcli.cli.options.network",
    "private": "xcli.cli.options.private",
}
SHARED_BY = {
    "terraform": tuple(DEFAULT.names(terraform=True)),
    # --force replaces what differs: reconciling providers, and Terraform mode
    "force": tuple(
        n for n in DEFAULT if DEFAULT.capabilities(n).terraform or DEFAULT.capabilities(n).observer
    ),
    # the VPC: every provider whose VMs live in one (a cloud project)
    "network": tuple(n for n in DEFAULT if DEFAULT.capabilities(n).cloud),
    # a private control plane and private nodes: providers whose clusters run Kubernetes
    "private": tuple(DEFAULT.names(kubernetes=True)),
}


def _options(group: str) -> list[Callable[[Any], Any]]:
    module = importlib.import_module(MODULES[group])
    return list(module.OPTIONS)


def _dest(decorator: Callable[[Any], Any]) -> str:
    def probe() -> None:
        pass

    decorated = decorator(probe)
    params: list[click.Parameter] = decorated.__click_params__
    return str(params[-1].name)


def names(group: str) -> list[str]:
    """The parameter names of a group's flags (for `--help` headings)."""
    return [_dest(option) for option in _options(group)]


def owned_options(provider: str, skip: tuple[str, ...] = ()) -> list[Callable[[Any], Any]]:
    """The flags `provider` takes: its own module's and those of the groups it shares."""
    return [
        option
        for group in MODULES
        if group not in skip and provider in SHARED_BY.get(group, (group,))
        for option in _options(group)
    ]


def provider_options(func: Any) -> Any:
    for group in reversed(list(MODULES)):
        for option in reversed(_options(group)):
            func = option(func)
    return func


# Groups whose flags are switches of the request itself (CreateRequest fields of their names),
# not settings of a provider.
SWITCHES = ("terraform", "force")


def split_options(
    provider: str, values: Mapping[str, Any]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the request's switches, the chosen provider's own flag values); refuse flags set for
    another provider."""
    switches: dict[str, Any] = {}
    mine: dict[str, Any] = {}
    for group in MODULES:
        owners = SHARED_BY.get(group, (group,))
        for option in _options(group):
            name = _dest(option)
            value = values.get(name)
            if provider in owners:
                (switches if group in SWITCHES else mine)[name] = value
            elif value not in (None, False, (), [], ""):
                flag = "--" + name.replace("_", "-")
                raise UserError(
                    f"{flag} applies only to --provider {' or '.join(owners)}",
                    hint=f"drop {flag}, or choose --provider {owners[0]}",
                )
    return switches, mine
