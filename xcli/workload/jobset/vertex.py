"""`workload create --vertex-tensorboard [--experiment-name N]` (XPK's --use-vertex-tensorboard):
the workload's Experiment in the cluster's Tensorboard, and the variables XPK passes the job.

XPK (AI-Hypercomputer/xpk@367c838 src/xpk/core/vertex.py l.53-100): the cluster's metadata names
the Tensorboard (`cluster create --create-vertex-tensorboard`; without it XPK stops and says to
run that), the Experiment is `<cluster>-<workload>` unless named, and cloud-accelerator-
diagnostics' create_experiment keeps or creates the instance, then the Experiment. xcli plans the
same two steps (xcli/plan/vertex.py) before the JobSet, and sets the variables of
src/xpk/core/docker_resources.py l.235-238 in it.
"""

from __future__ import annotations

import dataclasses

from xcli.errors import UserError
from xcli.plan import vertex
from xcli.plan.model import Plan, Ref
from xcli.workload.request import WorkloadRequest
from xcli.workload.spec import ClusterMeta, WorkloadSpec


def where(meta: ClusterMeta, request: WorkloadRequest) -> tuple[str, str, str] | None:
    """(region, Tensorboard name, experiment), or None without --vertex-tensorboard."""
    if request.experiment is None:
        return None
    experiment = request.experiment or f"{request.cluster}-{request.name}"
    if meta.tensorboard is not None:
        return (*meta.tensorboard, experiment)
    if meta.source == "flags":  # a dry-run read nothing: XPK's defaults, and the plan says so
        return vertex.DEFAULT_REGION, vertex.default_name(request.cluster), experiment
    raise UserError(
        f"cluster {meta.name} has no Vertex AI Tensorboard in its metadata",
        hint=f"make one with `xcli cluster create --cluster {meta.name} --vertex-tensorboard` "
        "(the same flags as before), then run this again",
    )


def with_env(spec: WorkloadSpec, project: str, place: tuple[str, str, str]) -> WorkloadSpec:
    """The spec with XPK's Tensorboard variables (shown in the plan: none is secret)."""
    added = vertex.workload_env(project, *place)
    mine = {k for k, _ in spec.env}
    new = tuple((k, v) for k, v in added if k not in mine)  # the user's --env wins
    return dataclasses.replace(
        spec, env=new + spec.env, lever_env=spec.lever_env + tuple(k for k, _ in new)
    )


def with_steps(
    plan: Plan, project: str, place: tuple[str, str, str], meta: ClusterMeta, workload: str
) -> Plan:
    """The Tensorboard (kept, or made as XPK's create_experiment does) and the Experiment,
    before every step of the workload's plan."""
    region, name, experiment = place
    board = vertex.tensorboard_step(project, region, name, meta.name)
    exp = vertex.EnsureExperiment(
        id="experiment",
        summary=f"create Vertex AI Tensorboard experiment {experiment} in {name} ({region})",
        after=(board.id,),
        region=region,
        tensorboard=Ref(board.id, "tensorboard"),
        experiment=experiment,
        workload=workload,
    )
    steps = [dataclasses.replace(s, after=(exp.id, *s.after)) for s in plan.steps]
    notes = list(plan.notes)
    if meta.tensorboard is None:
        notes.append(
            f"--vertex-tensorboard: the cluster's Tensorboard is taken to be XPK's default, "
            f"{name} in {region} (a dry-run reads no metadata; pass --cluster-metadata FILE)"
        )
    return dataclasses.replace(plan, steps=(board, exp, *steps), notes=tuple(notes))
