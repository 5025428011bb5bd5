"""`--namespace NS` on every `xcli workload` command (XPK 1.16's flag of the same name).

GKE: the JobSet goes in NS, and Kueue admits it through the LocalQueue of NS: `default`'s is
the cluster's own, a team's namespace holds the team's (`xcli team create`). VM-style clusters
(queued resources, local) run the command as processes on the VMs, where no namespace exists:
a namespace other than `default` is refused there rather than silently ignored, so that a
script written for a team never runs outside the team's quota without saying so.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from xcli.errors import UserError

if TYPE_CHECKING:
    from xcli.cli.common import Common
    from xcli.cli.workload_session import CliSession
    from xcli.workload.protocol import WorkloadBackend

DEFAULT = "default"


def check_namespace(value: str) -> str:
    """A Kubernetes namespace name: a DNS-1123 label (lowercase letters, digits, hyphens,
    starting and ending with a letter or digit, at most 63 characters;
    https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#dns-label-names).
    """
    import re

    if re.fullmatch(r"[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?", value):
        return value
    suggestion = re.sub(r"[^a-z0-9-]+", "-", value.lower()).strip("-")[:63].rstrip("-")
    raise UserError(
        f"--namespace {value!r} is not a Kubernetes namespace name (a DNS-1123 label: "
        "lowercase letters, digits and hyphens, at most 63, starting and ending with a letter "
        "or digit)",
        hint=f"try --namespace {suggestion}" if suggestion else "e.g. --namespace team-a",
    )


def namespace_option(func: Any) -> Any:
    return click.option(
        "--namespace",
        default=DEFAULT,
        show_default=True,
        metavar="NS",
        help="gke: the workload's namespace; a team's namespace (xcli team create) queues it "
        "in that team's quota. VM-style clusters have none: only default.",
    )(func)


def session_for(common: Common, namespace: str, kind: WorkloadBackend) -> CliSession:
    """The session of a workload command, once --namespace is checked for this backend."""
    from xcli.cli.workload_session import CliSession

    check_namespace(namespace)
    if namespace != DEFAULT and not kind.namespaces:
        raise UserError(
            f"--namespace {namespace}: workloads on this cluster are processes on its VMs, "
            "which have no Kubernetes namespace",
            hint="drop --namespace (teams and namespaces are for GKE clusters)",
        )
    return CliSession(common, namespace)
