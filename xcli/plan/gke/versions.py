"""Which in-cluster setups this xcli can use: the one place that says so.

`cluster create` and `cluster adapt` write `xcli_version` into the cluster's metadata
ConfigMap (plan/gke/incluster.py). Every command that reads that ConfigMap (workload create, team
create, cluster describe) compares it with this xcli: a cluster set up by a newer xcli may hold
objects or keys this one does not know, and one set up before MIN_SETUP_VERSION lacks what
this one relies on (the Kueue cohort that teams share, the `default` LocalQueue of the right
name). Both only warn: the workload may still run.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from xcli import __version__

# The oldest xcli whose in-cluster setup this one can use without re-running the setup. Raise it
# when the setup changes in a way older clusters lack (and say in the release notes why).
MIN_SETUP_VERSION = "0.1.0"

_VERSION = re.compile(r"^v?(\d+)\.(\d+)\.(\d+)")


def parse(version: str) -> tuple[int, int, int] | None:
    """(major, minor, patch) of "0.1.0" or "v0.12.0"; None for anything else (a dev build)."""
    found = _VERSION.match(version.strip())
    if found is None:
        return None
    major, minor, patch = (int(g) for g in found.groups())
    return major, minor, patch


def version_note(
    data: Mapping[str, Any],
    cluster: str,
    current: str = __version__,
    minimum: str = MIN_SETUP_VERSION,
) -> str:
    """A one-line warning about the xcli that set the cluster up, or "" when it is usable."""
    written = str(data.get("xcli_version", "") or "")
    setup, mine, oldest = parse(written), parse(current), parse(minimum)
    if setup is None or mine is None or oldest is None:
        if written:
            return ""  # a development build on either side: nothing to compare
        return (
            f"warning: cluster {cluster} records no xcli_version in its metadata; "
            f"re-run its setup (`xcli cluster create --cluster {cluster}` with its shape) "
            "to bring it up to date"
        )
    if setup > mine:
        return (
            f"warning: cluster {cluster} was set up by xcli {written}, newer than this xcli "
            f"{current}; upgrade xcli to use everything it set up"
        )
    if setup < oldest:
        return (
            f"warning: cluster {cluster} was set up by xcli {written}; this xcli {current} needs "
            f"a setup from {minimum} or later: re-run `xcli cluster create --cluster "
            f"{cluster}` with its shape (it only adds what is missing)"
        )
    return ""


# Installed releases older than these are upgraded only after asking: the upgrade changes an API
# that objects already in the cluster use. (component -> (version, why))
BREAKING_BELOW = {
    "kueue": (
        "v0.16.0",
        "Kueue v0.16 stores its objects as kueue.x-k8s.io/v1beta2 instead of v1beta1, and objects "
        "written before stay v1beta1 until rewritten "
        "(https://github.com/kubernetes-sigs/kueue/pull/8020)",
    ),
}


def upgrade_kind(component: str, installed: str, target: str) -> str:
    """What installing `target` over `installed` is: absent, same, upgrade, breaking, newer
    (xcli would downgrade it), or unknown (a tag that is no version: left as it is)."""
    if not installed:
        return "absent"
    have, want = parse(installed), parse(target)
    if have is None or want is None:
        return "unknown"
    if have == want:
        return "same"
    if have > want:
        return "newer"
    floor = BREAKING_BELOW.get(component)
    if floor is not None and have < (parse(floor[0]) or (0, 0, 0)):
        return "breaking"
    return "upgrade"
