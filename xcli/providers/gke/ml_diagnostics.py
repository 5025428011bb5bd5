"""`cluster create --ml-diagnostics`: the check, the note and the IAM step (the cluster's field
is in bodies.py; xcli/plan/ml_diagnostics.py holds the sources)."""

from __future__ import annotations

from xcli.errors import UserError
from xcli.plan import ml_diagnostics as mld
from xcli.plan.model import Step
from xcli.providers.gke import options as gke_opts
from xcli.spec import ClusterSpec


def check(spec: ClusterSpec) -> None:
    opts = gke_opts.of(spec)
    if opts.ml_diagnostics and opts.gke_version and mld.too_old(opts.gke_version):
        raise UserError(
            f"--ml-diagnostics needs GKE {mld.MIN_GKE} or later, not {opts.gke_version}",
            hint=f"pass --gke-version {mld.MIN_GKE} or later (XPK installs a webhook and an "
            "operator on older versions; xcli does not)",
        )


def notes(spec: ClusterSpec) -> list[str]:
    opts = gke_opts.of(spec)
    if not opts.ml_diagnostics or opts.gke_version:
        return []
    return [
        f"--ml-diagnostics: GKE sets it up on {mld.MIN_GKE} or later; the release channel's "
        "default version decides here (pass --gke-version to be sure)"
    ]


def steps(spec: ClusterSpec) -> list[Step]:
    return [mld.grant_step(spec.project)] if gke_opts.of(spec).ml_diagnostics else []
