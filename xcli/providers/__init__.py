"""Provider registry: name -> where its class lives. Modules load only when a provider is used."""

from __future__ import annotations

import importlib
import importlib.util

from xcli.errors import UserError
from xcli.providers.base import Provider

PROVIDERS: dict[str, str] = {
    "gke": "xcli.providers.gke_standard:standard",
    "queued-resource": "xcli.providers.queued_resource:QueuedResourceProvider",
    "local": "xcli.providers.local:LocalProvider",
}


def get_provider(name: str) -> Provider:
    if name not in PROVIDERS:
        raise UserError(f"unknown provider {name!r}", hint="providers: " + ", ".join(PROVIDERS))
    module, _, attr = PROVIDERS[name].partition(":")
    try:
        cls = getattr(importlib.import_module(module), attr)
    except ModuleNotFoundError as exc:
        if exc.name != module:
            raise
        raise UserError(
            f"provider {name!r} is not available in this version of xcli",
            hint="providers available: " + ", ".join(_available()),
        ) from None
    provider: Provider = cls()
    return provider


def _available() -> list[str]:
    found = []
    for name, target in PROVIDERS.items():
        if importlib.util.find_spec(target.partition(":")[0]) is not None:
            found.append(name)
    return found
