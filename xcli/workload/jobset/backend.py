"""Workloads as JobSets queued by Kueue on a GKE cluster: the WorkloadBackend for `gke`.

Planning is pure (manifest.py, plan.py, delete.py); reading and waiting go through `Live`
(live.py, logs.py), which this backend receives when it is made, never from a module global.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # typing only: `xcli workload --help` reads STATES
    from xcli.plan.cluster import ClusterRef
    from xcli.workload.jobset.live import Live
    from xcli.workload.protocol import Session

# queued (Kueue has not admitted it), running, succeeded, failed
STATES = ("queued", "running", "succeeded", "failed")


def _ns_flag(session: Session) -> str:
    return "" if session.namespace == "default" else f" --namespace {session.namespace}"


@dataclass
class JobSetBackend:
    live: Live
    kind: str = "jobset"
    states: tuple[str, ...] = STATES
    needs_image: bool = True
    extra_restart_codes: bool = True
    previews_delete: bool = True
    namespaces: bool = True  # --namespace picks the JobSet's namespace (a team's queue)

    def _ref(self, session: Session, cluster: str) -> ClusterRef:
        from xcli.plan.cluster import ClusterRef
        from xcli.spec import check_name

        check_name(cluster, "cluster", 40)
        return ClusterRef(cluster, session.project, session.zone, "gke")

    def create(self, session: Session, flags: Mapping[str, Any]) -> int:
        from xcli.workload.jobset.live import handlers
        from xcli.workload.jobset.plan import gke_cluster_path, plan_workload_create
        from xcli.workload.jobset.volumes import add_to_plan
        from xcli.workload.request import build_request, write_manifests
        from xcli.workload.storage_mounts import with_env
        from xcli.workload.storage_records import check_flags, gke_mounts

        check_flags(flags, session.dry_run, gke=True)  # before the cluster is read
        spec, meta, existing, ref = build_request(session, self.live, flags)
        mounts = gke_mounts(
            flags, session.dry_run, lambda: self.live.api(ref), spec.cluster, spec.namespace
        )
        spec = with_env(spec, mounts)
        cluster = gke_cluster_path(session.project, session.zone, spec.cluster)
        plan = plan_workload_create(spec, meta, existing, cluster)
        plan = add_to_plan(plan, mounts.storages, mounts.notes)
        plan = replace(plan, links=_links(session, spec))
        if flags["output_manifest_file"] is not None:
            write_manifests(plan, flags["output_manifest_file"])
        code = session.run_plan(plan, lambda: handlers(self.live, ref))
        if not session.dry_run and session.output == "text":
            where = f"{spec.name} --cluster {spec.cluster}{_ns_flag(session)}"
            session.say(
                f"follow it: xcli workload status {where}; xcli workload logs {where} --follow; "
                f"xcli workload wait {where}",
                err=True,
            )
        return code

    def list(self, session: Session, cluster: str, state: str | None) -> int:
        from xcli.workload.jobset.live import list_workloads
        from xcli.workload.jobset.report import (
            LIST_HEADERS,
            admission,
            list_note,
            row_cells,
            row_dict,
        )
        from xcli.workload.jobset.view import kueue_workload_for, list_rows

        jobsets, kueue = list_workloads(self.live, self._ref(session, cluster), session.namespace)
        rows = list_rows(jobsets, self.live.now(), state)
        if session.output != "text":
            from xcli.workload.jobset.goodput import list_fractions

            by_name = {js["metadata"]["name"]: js for js in jobsets}
            now = self.live.now().timestamp()
            session.emit(
                [
                    {
                        **row_dict(r),
                        "kueue": admission(kueue_workload_for(r.name, kueue)),
                        **list_fractions(by_name[r.name], kueue_workload_for(r.name, kueue), now),
                    }
                    for r in rows
                ]
            )
            return 0
        if not rows:
            which = f"{state} " if state else ""
            session.say(f"no {which}workloads on cluster {cluster}", err=True)
            return 0
        cells = [row_cells(r, list_note(r.state, kueue_workload_for(r.name, kueue))) for r in rows]
        session.table(LIST_HEADERS, cells)
        return 0

    def status(self, session: Session, cluster: str, name: str) -> int:
        from xcli.workload.jobset.live import status_objects
        from xcli.workload.jobset.report import status_lines, status_report

        found = status_objects(self.live, self._ref(session, cluster), name, session.namespace)
        report = status_report(
            found["jobset"],
            found["kueue"],
            found["pods"],
            found["events"],
            self.live.now(),
            found["queue"],
            found["position"],
        )
        if session.output != "text":
            session.emit(report)
            return 0
        for line in status_lines(report, cluster):
            session.say(line)
        session.say(self._goodput_line(session, cluster, name, found))
        if not report["workers"]:
            session.say("workers: no pods yet")
            return 0
        session.say("workers:")
        session.table(
            ("WORKER", "POD", "PHASE", "NODE", "EXIT", "REASON"),
            [
                [
                    w["worker"],
                    w["pod"],
                    w["phase"],
                    w["node"] or "-",
                    "-" if w["exit_code"] is None else str(w["exit_code"]),
                    w["reason"] or "-",
                ]
                for w in report["workers"]
            ],
        )
        return 0

    def _goodput_line(
        self, session: Session, cluster: str, name: str, found: Mapping[str, Any]
    ) -> str:
        from xcli.errors import CloudError
        from xcli.workload.goodput.render import summary
        from xcli.workload.jobset.goodput import goodput_report

        try:
            ref = self._ref(session, cluster)
            return summary(goodput_report(self.live, ref, name, session.namespace, found))
        except CloudError as exc:  # the status above stands without it
            return f"goodput: unknown ({exc.message})"

    def goodput(self, session: Session, cluster: str, name: str) -> int:
        from xcli.workload.goodput.render import text
        from xcli.workload.jobset.goodput import goodput_report

        report = goodput_report(self.live, self._ref(session, cluster), name, session.namespace)
        if session.output != "text":
            session.emit(report)
            return 0
        for line in text(report, name):
            session.say(line)
        return 0

    def logs(
        self,
        session: Session,
        cluster: str,
        name: str,
        selection: tuple[str, str],
        follow: bool,
        since: str | None,
    ) -> int:
        from xcli.spec import parse_duration
        from xcli.workload.jobset.logs import stream_logs

        since_seconds = parse_duration(since, "--since") if since else None
        lines = stream_logs(
            self.live,
            self._ref(session, cluster),
            name,
            worker=selection[0],
            slice_=selection[1],
            follow=follow,
            since=since_seconds,
            namespace=session.namespace,
        )
        for line in lines:
            if session.output != "text":
                record = {"worker": line.prefix.strip("[]"), "line": line.text, "note": line.note}
                session.emit_record(record)
            else:
                session.say(f"{line.prefix} {line.text}".lstrip(), err=line.note)
        return 0

    def wait(
        self, session: Session, cluster: str, name: str, timeout: str | None, seconds: int | None
    ) -> int:
        from xcli.workload.jobset.live import TIMEOUT_EXIT, wait_for

        def said(state: str) -> None:
            session.say(f"workload {name}: {state}", err=True)

        ref = self._ref(session, cluster)
        code = wait_for(self.live, ref, name, seconds, said, session.namespace)
        result = {0: "succeeded", 1: "failed"}.get(code, "timeout")
        if session.output != "text":
            session.emit({"workload": name, "result": result, "exit_code": code})
        elif code == TIMEOUT_EXIT:
            session.say(f"workload {name}: still not finished after {timeout}", err=True)
        elif code == 1:
            session.say(f"workload {name} failed; `xcli workload status {name}` says why", err=True)
        return code

    def delete(
        self,
        session: Session,
        cluster: str,
        name: str | None,
        state: str | None,
        older_than: tuple[str, int] | None,
    ) -> int:
        from xcli.workload.jobset.delete import plan_workload_delete
        from xcli.workload.jobset.live import get_jobset, handlers, select_deletions
        from xcli.workload.jobset.plan import gke_cluster_path

        ref = self._ref(session, cluster)
        if name is not None:
            names, state_now = [name], ""
            if not session.dry_run:
                from xcli.workload.jobset.view import jobset_state

                # refuses an unknown name, listing the real ones
                found = get_jobset(self.live, ref, name, session.namespace)
                state_now = f" ({jobset_state(found)})"
            question = f"Delete workload {name}{state_now} on cluster {cluster}?"
        else:
            seconds = older_than[1] if older_than else None
            names, _ = select_deletions(self.live, ref, state, seconds, session.namespace)
            age = f" older than {older_than[0]}" if older_than else ""
            if not names:
                session.say(f"no {state} workloads{age} on cluster {cluster}", err=True)
                return 0
            session.say(f"{state} workloads{age}: {', '.join(names)}", err=True)
            question = f"Delete these {len(names)} workload(s) on cluster {cluster}?"
        session.confirm(question)
        path = gke_cluster_path(session.project, session.zone, cluster)
        plan = plan_workload_delete(names, path, cluster, session.namespace)
        return session.run_plan(plan, lambda: handlers(self.live, ref))


def _links(session: Session, spec: Any) -> dict[str, str]:
    """The Cloud Console pages of the workload and of its first pod's logs (XPK prints both)."""
    from xcli.plan.console import workload_links
    from xcli.workload.spec import GPU_REPLICATED_JOB, TPU_REPLICATED_JOB

    rjob = TPU_REPLICATED_JOB if spec.accelerator.kind == "tpu" else GPU_REPLICATED_JOB
    region = session.zone.rsplit("-", 1)[0]
    return workload_links(
        session.project, region, spec.cluster, spec.namespace, spec.name,
        f"{spec.name}-{rjob}-0-0-",
    )  # fmt: skip
