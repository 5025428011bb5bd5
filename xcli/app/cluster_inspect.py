"""`xcli cluster inspect`: the reads of a debug bundle (plan), run or printed, and what the
bundle step returned. Reached through the cluster's provider's ClusterAccess, like every
workload command; never prints."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from xcli.errors import UserError

if TYPE_CHECKING:
    from xcli.app.deps import Deps, Location


@dataclass(frozen=True)
class InspectRequest:
    cluster: str
    workload: str | None
    namespace: str
    archive: Path | None
    log_lines: int
    where: Location


def inspect(req: InspectRequest, deps: Deps) -> dict[str, Any] | None:
    """The bundle step's outputs (archive, summary); None for --dry-run (the reads were
    printed)."""
    from xcli.app.workload import check_namespace
    from xcli.app.workload_facts import cluster_live
    from xcli.cluster_index import provider_for
    from xcli.plan.cluster import ClusterRef
    from xcli.spec import check_name
    from xcli.workload.jobset.inspect import plan_inspect
    from xcli.workload.jobset.inspect_live import handlers
    from xcli.workload.jobset.plan import gke_cluster_path

    check_name(req.cluster, "cluster", 40)
    if req.workload:
        check_name(req.workload, "workload", 63)
    check_namespace(req.namespace)
    provider = provider_for(req.cluster, None, deps.registry.default())
    if not deps.registry.capabilities(provider).kubernetes:
        raise UserError(
            f"cluster {req.cluster} ({provider}) has no Kubernetes API to inspect",
            hint=f"`xcli cluster describe --cluster {req.cluster}` and `xcli workload status W` "
            "say how its VMs and runs are",
        )
    target = req.archive or Path(f"xcli-inspect-{req.cluster}.tar.gz")
    if req.archive is not None:  # before the first read, not after it (issue 37)
        from xcli.user_files import check_writable_file

        check_writable_file(req.archive, "--archive", folder_exists=True)
    project, zone = req.where.project, req.where.zone
    plan = plan_inspect(
        gke_cluster_path(project, zone, req.cluster),
        req.cluster,
        str(target),
        workload=req.workload,
        namespace=req.namespace,
        tail_lines=req.log_lines,
    )
    ref = ClusterRef(req.cluster, project, zone, provider)
    reach = cluster_live(deps)  # the cluster through its provider's ClusterAccess
    run = deps.run_quiet(plan, lambda: handlers(reach, ref, req.workload))
    if run is None:
        return None
    bundle = run.results["bundle"]
    if bundle.status != "ok":
        failed = [r for r in run.results.values() if r.status == "failed"]
        cause = failed[0].error if failed else None
        raise cause if isinstance(cause, Exception) else UserError("the bundle was not written")
    return dict(bundle.outputs)
