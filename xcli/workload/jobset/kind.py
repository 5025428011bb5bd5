"""Workloads as JobSets queued by Kueue on a GKE cluster: the `jobset` WorkloadKind.

Planning is pure (manifest.py, plan.py, delete.py); reading and waiting go through `Live`
(live.py, logs.py), which this kind receives when it is made, never from a module global.
What it reads or plans comes back as data (xcli/workload/protocol.py); it never prints.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from xcli.workload.protocol import (
    WORKER_BY_WORKER,
    Context,
    Creation,
    Deletion,
    Lazy,
    Listing,
    LogLine,
    LogView,
    Outcome,
    Report,
    Selection,
    Table,
)

if TYPE_CHECKING:
    from xcli.providers import Capabilities
    from xcli.workload.backends import KindGateways
    from xcli.workload.jobset.live import Live
    from xcli.workload.request import WorkloadRequest
    from xcli.workload.stragglers.marks import Arrivals

WORKERS_HEADERS = ("WORKER", "POD", "PHASE", "NODE", "EXIT", "REASON")


def vertex_handlers() -> dict[str, Any]:
    """The Tensorboard and Experiment steps of --vertex-tensorboard (gateways/google/vertex.py)."""
    from xcli.gateways.google.vertex import VertexGateway
    from xcli.plan.vertex import EnsureExperiment, EnsureTensorboard

    gateway = VertexGateway()
    return {EnsureTensorboard.kind: gateway.ensure, EnsureExperiment.kind: gateway.experiment}


def _ns_flag(ctx: Context) -> str:
    return "" if ctx.namespace == "default" else f" --namespace {ctx.namespace}"


@dataclass
class JobSetKind:
    live: Live

    @classmethod
    def build(cls, provider: str, capabilities: Capabilities, gateways: KindGateways) -> JobSetKind:
        from xcli.errors import InternalError

        if gateways.live is None:
            raise InternalError("the jobset kind was built without a way to reach clusters")
        return cls(gateways.live)

    def plan_create(self, ctx: Context, request: WorkloadRequest) -> Creation:
        from xcli.plan.model import symbolic
        from xcli.workload.jobset import vertex
        from xcli.workload.jobset.live import handlers
        from xcli.workload.jobset.plan import (
            gke_cluster_path,
            manifest_documents,
            plan_workload_create,
            with_capacity,
        )
        from xcli.workload.jobset.volumes import add_to_plan
        from xcli.workload.request import spec_from_request
        from xcli.workload.storage_mounts import with_env
        from xcli.workload.storage_records import check_request, gke_mounts

        check_request(request)  # before the cluster is read
        ref = ctx.cluster_ref(request.cluster)
        meta, existing = ctx.facts.cluster(self.live, ref, request, ctx.say)
        meta = with_capacity(meta, request.capacity)  # NAP: the capacity asked for at submit
        spec = spec_from_request(request, meta)
        mounts = gke_mounts(request, ctx.facts, lambda: self.live.api(ref), spec.namespace)
        spec = with_env(spec, mounts)
        board = vertex.where(meta, request)  # --vertex-tensorboard: XPK's variables and steps
        spec = vertex.with_env(spec, ctx.project, board) if board else spec
        cluster = gke_cluster_path(ctx.project, ctx.zone, spec.cluster)
        plan = plan_workload_create(spec, meta, existing, cluster)
        plan = add_to_plan(plan, mounts.storages, mounts.notes, mounts.unread, spec.cluster,
                           spec.namespace)  # fmt: skip
        if board:
            plan = vertex.with_steps(plan, ctx.project, board, meta, spec.name)
        plan = replace(plan, links=_links(ctx, spec))
        if request.detach:  # issue 37: no flag is dropped without a word
            note = "--detach changes nothing here: a JobSet always runs detached"
            plan = replace(plan, notes=(*plan.notes, note))
        where = f"{spec.name} --cluster {spec.cluster}{_ns_flag(ctx)}"
        return Creation(
            plan,
            lambda: {**handlers(self.live, ref), **vertex_handlers()},
            manifests=tuple(symbolic(m) for m in manifest_documents(plan)),
            follow=f"follow it: xcli workload status {where}; xcli workload logs {where} "
            f"--follow; xcli workload wait {where}",
        )

    def list(self, ctx: Context, cluster: str, state: str | None) -> Listing:
        from xcli.workload.jobset.goodput import list_fractions
        from xcli.workload.jobset.live import list_workloads
        from xcli.workload.jobset.report import (
            LIST_HEADERS,
            admission,
            list_note,
            row_cells,
            row_dict,
        )
        from xcli.workload.jobset.view import kueue_workload_for, list_rows

        jobsets, kueue = list_workloads(self.live, ctx.cluster_ref(cluster), ctx.namespace)
        rows = list_rows(jobsets, self.live.now(), state)
        by_name = {js["metadata"]["name"]: js for js in jobsets}
        now = self.live.now().timestamp()
        records = [
            {
                **row_dict(r),
                "kueue": admission(kueue_workload_for(r.name, kueue)),
                **list_fractions(by_name[r.name], kueue_workload_for(r.name, kueue), now),
            }
            for r in rows
        ]
        cells = [row_cells(r, list_note(r.state, kueue_workload_for(r.name, kueue))) for r in rows]
        which = f"{state} " if state else ""
        return Listing(
            records,
            Table(tuple(LIST_HEADERS), tuple(tuple(c) for c in cells)),
            empty=f"no {which}workloads on cluster {cluster}",
        )

    def status(self, ctx: Context, cluster: str, name: str) -> Report:
        from xcli.workload.jobset.live import status_objects
        from xcli.workload.jobset.report import status_lines, status_report

        found = status_objects(self.live, ctx.cluster_ref(cluster), name, ctx.namespace)
        report = status_report(
            found["jobset"],
            found["kueue"],
            found["pods"],
            found["events"],
            self.live.now(),
            found["queue"],
            found["position"],
        )
        text: list[str | Table | Lazy] = [*status_lines(report, cluster)]
        text.append(Lazy(lambda: self._goodput_line(ctx, cluster, name, found)))
        if not report["workers"]:
            return Report(report, (*text, "workers: no pods yet"))
        rows = tuple(
            (
                w["worker"],
                w["pod"],
                w["phase"],
                w["node"] or "-",
                "-" if w["exit_code"] is None else str(w["exit_code"]),
                w["reason"] or "-",
            )
            for w in report["workers"]
        )
        return Report(report, (*text, "workers:", Table(WORKERS_HEADERS, rows)))

    def _goodput_line(self, ctx: Context, cluster: str, name: str, found: Mapping[str, Any]) -> str:
        from xcli.errors import CloudError
        from xcli.workload.goodput.render import summary
        from xcli.workload.jobset.goodput import goodput_report

        try:
            ref = ctx.cluster_ref(cluster)
            return summary(goodput_report(self.live, ref, name, ctx.namespace, found))
        except CloudError as exc:  # the status above stands without it
            return f"goodput: unknown ({exc.message})"

    def goodput(self, ctx: Context, cluster: str, name: str) -> Report:
        from xcli.workload.goodput.render import text
        from xcli.workload.jobset.goodput import goodput_report

        report = goodput_report(self.live, ctx.cluster_ref(cluster), name, ctx.namespace)
        return Report(report, tuple(text(report, name)))

    def arrivals(
        self, ctx: Context, cluster: str, name: str, since_seconds: int | None
    ) -> Arrivals:
        from xcli.workload.jobset.arrivals import arrivals

        ref = ctx.cluster_ref(cluster)
        return arrivals(self.live, ref, name, ctx.namespace, since_seconds)

    def logs(
        self,
        ctx: Context,
        cluster: str,
        name: str,
        selection: tuple[str, str],
        follow: bool,
        since: str | None,
        view: LogView = WORKER_BY_WORKER,
    ) -> Iterator[LogLine]:
        from xcli.spec import parse_duration
        from xcli.workload.jobset.logs import stream_logs

        since_seconds = parse_duration(since, "--since") if since else None
        return stream_logs(
            self.live,
            ctx.cluster_ref(cluster),
            name,
            worker=selection[0],
            slice_=selection[1],
            follow=follow,
            since=since_seconds,
            namespace=ctx.namespace,
            view=view,
        )

    def wait(
        self, ctx: Context, cluster: str, name: str, timeout: str | None, seconds: int | None
    ) -> Outcome:
        from xcli.workload.jobset.live import TIMEOUT_EXIT, wait_for

        def said(state: str) -> None:
            ctx.say(f"workload {name}: {state}")

        ref = ctx.cluster_ref(cluster)
        code = wait_for(self.live, ref, name, seconds, said, ctx.namespace)
        result = {0: "succeeded", 1: "failed"}.get(code, "timeout")
        message = None
        if code == TIMEOUT_EXIT:
            message = f"workload {name}: still not finished after {timeout}"
        elif code == 1:
            message = f"workload {name} failed; `xcli workload status {name}` says why"
        return Outcome(code, {"workload": name, "result": result, "exit_code": code}, message)

    def plan_delete(
        self,
        ctx: Context,
        cluster: str,
        name: str | None,
        selection: Selection,
    ) -> Deletion:
        from xcli.workload.jobset.delete import plan_selected_delete, plan_workload_delete
        from xcli.workload.jobset.live import get_jobset, handlers, select_deletions
        from xcli.workload.jobset.plan import gke_cluster_path
        from xcli.workload.jobset.view import jobset_state

        ref = ctx.cluster_ref(cluster)
        path = gke_cluster_path(ctx.project, ctx.zone, cluster)
        notes: tuple[str, ...] = ()
        if name is not None:
            names: list[str] | None = [name]
            # refuses an unknown name, listing the real ones (a dry-run reads nothing)
            state_now = ctx.facts.workload_state(
                lambda: jobset_state(get_jobset(self.live, ref, name, ctx.namespace))
            )
            question = f"Delete workload {name}{state_now} on cluster {cluster}?"
        else:
            seconds = selection.older_than[1] if selection.older_than else None
            names = ctx.facts.selected(
                lambda: select_deletions(
                    self.live, ref, selection.state, seconds, ctx.namespace,
                    selection.name_contains,
                )[0]
            )  # fmt: skip
            words = selection.words()
            if names is None:  # a dry-run: what the live run reads, keeps and deletes
                plan = plan_selected_delete(words, path, cluster, ctx.namespace)
                return Deletion((), f"Delete the {words} on cluster {cluster}?", plan)
            if not names:
                return Deletion(notes=(f"no {words} on cluster {cluster}",))
            notes = (f"{words}: {', '.join(names)}",)
            question = f"Delete these {len(names)} workload(s) on cluster {cluster}?"
        plan = plan_workload_delete(names or [], path, cluster, ctx.namespace)
        return Deletion(notes, question, plan, lambda: handlers(self.live, ref))


def _links(ctx: Context, spec: Any) -> dict[str, str]:
    """The Cloud Console pages of the workload and of its first pod's logs (XPK prints both)."""
    from xcli.plan.gke.console import workload_links
    from xcli.workload.spec import GPU_REPLICATED_JOB, TPU_REPLICATED_JOB

    rjob = TPU_REPLICATED_JOB if spec.accelerator.kind == "tpu" else GPU_REPLICATED_JOB
    region = ctx.zone.rsplit("-", 1)[0]
    return workload_links(
        ctx.project, region, spec.cluster, spec.namespace, spec.name,
        f"{spec.name}-{rjob}-0-0-",
    )  # fmt: skip
