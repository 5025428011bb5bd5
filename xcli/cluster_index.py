"""Which provider made each cluster this machine knows, so `--cluster NAME` finds it alone.

`xcli cluster create` records (name, provider) in $XCLI_HOME/clusters.json before it runs the
plan (a cluster that is partly there is found too), and `xcli cluster delete` forgets it after
a delete that succeeded. Each change holds the index's lock and replaces the file whole
(xcli/state_files.py), so concurrent creates never drop each other's entries. A local cluster
is also known by its own folder ($XCLI_HOME/local/NAME), so clusters made before this index
existed are found as well.

Commands that take `--cluster` and `--provider` ask `provider_for`: an explicit --provider
always wins; otherwise the one recorded provider; two or more is an error naming them; none is
the command's old default (gke, or queued-resource for the SSH commands).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from xcli import paths
from xcli.errors import UserError
from xcli.state_files import locked, write_private


def index_file() -> Path:
    return paths.state_dir() / "clusters.json"


def _read() -> dict[str, list[str]]:
    try:
        data = json.loads(index_file().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    clusters = data.get("clusters") if isinstance(data, dict) else None
    if not isinstance(clusters, dict):
        return {}
    return {str(k): [str(p) for p in v] for k, v in clusters.items() if isinstance(v, list)}


def _write(clusters: dict[str, list[str]]) -> None:
    body = {"clusters": {k: sorted(set(v)) for k, v in sorted(clusters.items()) if v}}
    write_private(index_file(), json.dumps(body, indent=2) + "\n")  # whole, 0600


def record(name: str, provider: str) -> None:
    with locked(index_file()):  # read-modify-write: no other process's entry is dropped
        clusters = _read()
        if provider not in clusters.get(name, []):
            clusters.setdefault(name, []).append(provider)
            _write(clusters)


def forget(name: str, provider: str) -> None:
    with locked(index_file()):
        clusters = _read()
        if provider in clusters.get(name, []):
            clusters[name].remove(provider)
            _write(clusters)


def _local_names() -> list[str]:
    from xcli.providers.local.layout import ClusterFiles, cluster_root

    root = cluster_root()
    if not root.is_dir():
        return []
    return sorted(p.name for p in root.iterdir() if ClusterFiles(p).spec.is_file())


def providers_of(name: str) -> list[str]:
    found = set(_read().get(name, []))
    if name in _local_names():
        found.add("local")
    return sorted(found)


def known_names() -> list[str]:
    """Every cluster name this machine knows (for shell completion)."""
    return sorted({*_read(), *_local_names()})


def provider_for(
    name: str, explicit: str | None, default: str, allowed: Sequence[str] | None = None
) -> str:
    if explicit is not None:
        return explicit
    recorded = providers_of(name)
    found = [p for p in recorded if allowed is None or p in allowed]
    if recorded and not found and allowed is not None:  # not a silent fall-back (issue 37)
        raise UserError(
            f"cluster {name} was created with --provider {' and '.join(recorded)} on this "
            f"machine, which this command does not reach (it works with "
            f"{', '.join(allowed)})",
            hint="a GKE cluster's workers are pods: xcli workload logs|status reach them; pass "
            "--provider if you mean another cluster of that name",
        )
    if len(found) > 1:
        raise UserError(
            f"cluster {name} is known under several providers: {', '.join(found)}",
            hint="say which: " + " or ".join(f"--provider {p}" for p in found),
        )
    return found[0] if found else default


# The one rule for which provider a command on cluster NAME means (issue 27): an explicit
# --provider; else the provider this machine recorded for NAME; else gke (commands limited to
# some providers, like ssh, default to the first of those). `cluster create` of a recorded
# name with another --provider is refused rather than planned beside it.
@dataclass(frozen=True)
class Choice:
    provider: str
    why: Literal["flag", "recorded", "default"]

    def note(self, name: str) -> str:
        """One line for the plan's header: which provider, and why ("" when --provider said it:
        the title names the provider)."""
        if self.why == "flag":
            return ""
        if self.why == "recorded":
            return (
                f"provider: {self.provider} (this machine recorded cluster {name} as "
                f"{self.provider}; pass --provider to choose another)"
            )
        return (
            f"provider: {self.provider} (the default: no --provider, and no cluster {name} "
            "recorded on this machine)"
        )


def choose(
    name: str, explicit: str | None, default: str = "gke", allowed: Sequence[str] | None = None
) -> Choice:
    """The provider a command on `name` means, and why (see the rule above)."""
    if explicit is not None:
        return Choice(explicit, "flag")
    found = [p for p in providers_of(name) if allowed is None or p in allowed]
    return Choice(provider_for(name, None, default, allowed), "recorded" if found else "default")


def choose_for_create(name: str, explicit: str | None) -> Choice:
    """`cluster create`: the recorded provider completes the cluster it made; another one is
    refused, since two clusters of one name on two providers make every later command ask."""
    recorded = providers_of(name)
    if explicit is not None and recorded and explicit not in recorded:
        raise UserError(
            f"cluster {name} was created with --provider {' and '.join(recorded)} on this "
            f"machine, not {explicit}",
            hint=f"choose another --cluster name, or delete it first: xcli cluster delete "
            f"--cluster {name} --provider {recorded[0]}",
        )
    return choose(name, explicit)
