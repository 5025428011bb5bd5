"""The local provider's own option (`--base-port`), typed and frozen once from the request
(Registry.options); only this module reads it by name."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from xcli.spec import ClusterSpec, ProviderOptions


@dataclass(frozen=True)
class LocalOptions(ProviderOptions):
    base_port: int | None = None  # fixed ports from here up; None: free ports chosen at start


def local_options(flags: Mapping[str, object]) -> LocalOptions:
    base = flags.get("base_port")
    return LocalOptions(base_port=int(str(base)) if base is not None else None)


def of(spec: ClusterSpec) -> LocalOptions:
    """The spec's LocalOptions; a spec built without options gets the defaults."""
    found = spec.options
    if isinstance(found, LocalOptions):
        return found
    if type(found) is ProviderOptions:
        return LocalOptions()
    raise TypeError(f"a local spec carries {type(found).__name__}, not LocalOptions")
