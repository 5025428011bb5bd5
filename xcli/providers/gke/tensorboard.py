"""`cluster create --vertex-tensorboard`: the Tensorboard step and its metadata entries
(xcli/plan/vertex.py holds the request and its sources)."""

from __future__ import annotations

from typing import Any

from xcli.errors import UserError
from xcli.plan import vertex
from xcli.plan.model import Step
from xcli.providers.gke import options as gke_opts
from xcli.spec import ClusterSpec


def _where(spec: ClusterSpec) -> tuple[str, str] | None:
    """(region, display name), or None without --vertex-tensorboard; the two settings alone
    are refused, rather than dropped."""
    opts = gke_opts.of(spec)
    if not opts.vertex_tensorboard:
        for flag, given in (
            ("--tensorboard-region", opts.tensorboard_region),
            ("--tensorboard-name", opts.tensorboard_name),
        ):
            if given:
                raise UserError(
                    f"{flag} applies only with --vertex-tensorboard",
                    hint="add --vertex-tensorboard, or drop " + flag,
                )
        return None
    region = opts.tensorboard_region or vertex.DEFAULT_REGION
    return region, opts.tensorboard_name or vertex.default_name(spec.name)


def check(spec: ClusterSpec) -> None:
    _where(spec)


def steps(spec: ClusterSpec) -> list[Step]:
    where = _where(spec)
    if where is None:
        return []
    return [vertex.tensorboard_step(spec.project, where[0], where[1], spec.name)]


def metadata(spec: ClusterSpec) -> dict[str, Any]:
    """The metadata ConfigMap's Tensorboard entries ({} without one)."""
    where = _where(spec)
    return vertex.metadata(*where) if where else {}
