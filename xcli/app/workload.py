"""`xcli workload create|list|status|logs|wait|delete|goodput`: one use case per command.

Each takes a frozen request and `Deps`, finds the kind of workload the cluster's provider runs
(its registry entry's `Capabilities.workloads`, xcli/workload/kinds.py), checks what needs no
cluster, and calls the kind. It returns the kind's data (rows, reports, outcomes, log lines);
the CLI renders them once for every kind (xcli/cli/workload_view.py). Plans run through
`Deps.run_plan`, so --dry-run only chooses the executor; what a live run reads first comes
through `Deps.facts` (live, or the dry-run's files and flags).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from xcli.errors import UserError

if TYPE_CHECKING:
    from xcli.app.deps import Deps, Location
    from xcli.app.workload_image import ImageFlags
    from xcli.plan.model import Plan
    from xcli.providers import Capabilities
    from xcli.providers.base import VmAccess
    from xcli.workload.kinds import KindEntry
    from xcli.workload.protocol import (
        Context,
        Listing,
        LogLine,
        Outcome,
        Report,
        WorkloadKind,
    )
    from xcli.workload.request import WorkloadRequest

DEFAULT_NAMESPACE = "default"
MARK = "XCLI_GOODPUT"  # the prefix of xcli.goodput's lines


@dataclass(frozen=True)
class Target:
    """A command's cluster, its provider (given, or found for the cluster), the namespace."""

    cluster: str
    provider: str
    where: Location
    namespace: str = DEFAULT_NAMESPACE
    kind: str | None = None  # None: the provider's default kind; "pathways" for --pathways


@dataclass(frozen=True)
class CreateRequest:
    workload: WorkloadRequest
    where: Location
    # --base-docker-image/--script-dir (an image built and pushed first), --docker-name,
    # --docker-image-pull-secret (app/workload_image.py); None: none of them
    image: ImageFlags | None = None


@dataclass(frozen=True)
class Created:
    follow: str | None  # the commands that follow the workload, said after a live run


def kind_entry(deps: Deps, provider: str, kind: str | None = None) -> KindEntry:
    """What the command line checks before anything is read (the kind's registry entry);
    `kind` None is the provider's default, another one is refused where it does not run."""
    from xcli.workload.kinds import entry

    return entry(_kind_for(deps.registry.capabilities(provider), provider, kind))


def _kind_for(caps: Capabilities, provider: str, kind: str | None) -> str:
    from xcli.workload.kinds import kind_name

    name = kind or kind_name(caps)
    if name not in caps.workloads:
        raise UserError(
            f"--{name} runs on GKE clusters; the {provider} provider's clusters run "
            f"{', '.join(caps.workloads)} workloads",
            hint=f"create a GKE cluster with `xcli cluster create --{name}`",
        )
    return name


def create(req: CreateRequest, deps: Deps) -> Created:
    """Plan the workload (the cluster's facts through deps.facts) and run or print it."""
    from xcli.app import workload_image

    w = req.workload
    named = "pathways" if w.pathways is not None else None
    kind, ctx = _open(deps, Target(w.cluster, w.provider, req.where, w.namespace, named))
    if req.image is not None and req.image.copy_to_vms:  # VM-style: the folder, no image
        return _create_with_folder(req, kind, ctx, deps)
    if req.image is not None and req.image.base is not None:  # HOST/NAME@${build.digest}
        image = workload_image.planned(req.image, lambda: ctx.project, lambda: ctx.zone)
        w = dataclasses.replace(w, image=image)
    elif w.image:  # the one reference parser, before the cluster is read
        from xcli.image import reference

        reference.parse(w.image, what="--docker-image")
    creation = kind.plan_create(ctx, w)
    plan, handlers = creation.plan, creation.handlers
    if req.image is not None:
        plan, handlers = workload_image.finish(
            req.image, w.image, plan, handlers, deps, node_project=lambda: ctx.project
        )
    if w.output_manifest_file is not None:
        manifests = creation.manifests
        if req.image is not None:
            manifests = workload_image.dress_manifests(req.image, w.image, manifests)
        _write_manifests(manifests, w.output_manifest_file)
    deps.run_plan(plan, handlers)
    return Created(creation.follow)


def _create_with_folder(
    req: CreateRequest, kind: WorkloadKind, ctx: Context, deps: Deps
) -> Created:
    """--script-dir on a VM-style cluster: copy the folder first, run the command in it."""
    from xcli.app import workload_sync
    from xcli.image import sync

    assert req.image is not None
    w = req.workload
    copy = workload_sync.prepare(req.image.script_dir, w.cluster, deps, req.image.include)
    w = dataclasses.replace(w, command=sync.run_in(copy.tag, w.command))
    creation = kind.plan_create(ctx, w)
    steps = [copy] + [
        dataclasses.replace(s, after=(*s.after, copy.id)) if not s.after else s
        for s in creation.plan.steps
    ]
    plan = dataclasses.replace(creation.plan, steps=tuple(steps))
    copy_handler = workload_sync.handler(w.provider, req.where, deps)
    deps.run_plan(plan, lambda: {**creation.handlers(), sync.ScriptSync.kind: copy_handler})
    return Created(creation.follow)


def list_workloads(
    target: Target, state: str | None, deps: Deps, name_contains: str = ""
) -> Listing:
    entry = kind_entry(deps, target.provider)
    if state is not None and state not in entry.states:
        raise UserError(
            f"--state {state} does not occur on --provider {target.provider} clusters",
            hint=f"states there: {', '.join(entry.states)}",
        )
    kind, ctx = _open(deps, target)
    found = kind.list(ctx, target.cluster, state)
    if not name_contains:
        return found
    # XPK's --filter-by-job and gcluster's --name-contains: a substring of the name (XPK's
    # code tests `filter_by_job not in name`, src/xpk/core/workload.py:289 at 367c838253be)
    keep = [i for i, r in enumerate(found.records) if name_contains in str(r.get("name", ""))]
    rows = tuple(found.table.rows[i] for i in keep)
    return dataclasses.replace(
        found,
        records=[found.records[i] for i in keep],
        table=dataclasses.replace(found.table, rows=rows),
        empty=f"{found.empty} whose name contains {name_contains!r}",
    )


def status(target: Target, name: str, deps: Deps) -> Report:
    """The kind's status, and in text one line when a chronic straggler exists (read only
    when the text is shown: `--output json` reads no more than before)."""
    from xcli.app.stragglers import status_line

    kind, ctx = _open(deps, target)
    report = kind.status(ctx, target.cluster, name)
    return status_line(report, kind, ctx, target.cluster, name)


def goodput(target: Target, name: str, deps: Deps) -> Report:
    """The kind's goodput report, with the time lost to stragglers beside the badput."""
    from xcli.app.stragglers import with_time_lost

    kind, ctx = _open(deps, target)
    report = kind.goodput(ctx, target.cluster, name)
    return with_time_lost(report, kind, ctx, target.cluster, name)


def logs(
    target: Target,
    name: str,
    selection: tuple[str, str],
    follow: bool,
    since: str | None,
    deps: Deps,
    show_marks: bool = False,
    view: tuple[bool, bool] = (False, False),
) -> Iterator[LogLine]:
    """The kind's log lines; the goodput marks (xcli's own protocol, most lines of a long run)
    only with `show_marks`. xcli's notes about a worker are always kept. `view`: (timestamps,
    merge): each line's time, and all workers' lines in one time-ordered stream."""
    if since is not None:  # before the cluster is reached (issue 37: checks before the network)
        from xcli.spec import check_duration

        check_duration(since, "--since", 1, LONGEST_SINCE)
    kind, ctx = _open(deps, target)
    from xcli.workload.protocol import LogView

    wanted = LogView(timestamps=view[0], merge=view[1])
    lines = kind.logs(ctx, target.cluster, name, selection, follow, since, wanted)
    if show_marks:
        return lines
    return (line for line in lines if line.note or MARK not in line.text)


LONGEST_SINCE = 365 * 86400  # Kubernetes' sinceSeconds is an int64; no node keeps a year of logs


def wait(
    target: Target, name: str, timeout: str | None, seconds: int | None, deps: Deps
) -> Outcome:
    kind, ctx = _open(deps, target)
    return kind.wait(ctx, target.cluster, name, timeout, seconds)


@dataclass(frozen=True)
class DeleteRequest:
    target: Target
    name: str | None
    state: str | None
    older_than: tuple[str, int] | None  # (as typed, in seconds)
    preview: bool  # --dry-run: the kind must be able to print its delete plan
    name_contains: str = ""  # without a name: only workloads whose name holds it


def delete(req: DeleteRequest, deps: Deps) -> None:
    """Delete one named workload, or every one in a state, once the answer is yes."""
    if req.preview and not kind_entry(deps, req.target.provider).previews_delete:
        raise UserError(
            f"--dry-run of a {req.target.provider} workload delete is not supported",
            hint="`xcli workload status NAME --provider ...` shows what would be stopped",
        )
    kind, ctx = _open(deps, req.target)
    from xcli.workload.protocol import Selection

    selection = Selection(req.state, req.older_than, req.name_contains)
    deletion = kind.plan_delete(ctx, req.target.cluster, req.name, selection)
    for note in deletion.notes:
        deps.say(note)
    if deletion.question is None:
        return
    deps.confirm(deletion.question)
    if deletion.plan is not None:
        deps.run_plan(deletion.plan, deletion.handlers)
    if deletion.finish is not None:
        deletion.finish(deps.say)


@dataclass(frozen=True)
class LoggingRequest:
    """`workload goodput NAME --source cloud-logging`: the records of one job in one log."""

    name: str
    log_name: str
    job_name: str
    where: Location


def check_log_names(log_name: str, job_name: str) -> None:
    """--log-name and --job-name as Cloud Logging takes them, checked before anything else."""
    from xcli.workload.goodput.cloud_logging import check_log_names as check

    check(log_name, job_name)


def goodput_read_plan(req: LoggingRequest) -> Plan:
    """The one request the read sends, as a plan (what --dry-run prints)."""
    from xcli.workload.goodput.cloud_logging import read_plan

    return read_plan(req.where.project, req.log_name, req.job_name)


def goodput_from_logging(req: LoggingRequest, deps: Deps) -> Report:
    """Goodput from the ml-goodput-measurement records in Cloud Logging (no cluster read)."""
    from xcli.workload.goodput.cloud_logging import goodput_from_logging as read

    gateways = deps.workload_gateways
    gateway = gateways.logging if gateways is not None else None
    return read(gateway, req.where.project, req.name, req.log_name, req.job_name)


def check_namespace(value: str) -> str:
    """A Kubernetes namespace name: a DNS-1123 label (lowercase letters, digits, hyphens,
    starting and ending with a letter or digit, at most 63 characters;
    https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#dns-label-names).
    """
    from xcli.spec import is_k8s_name  # the one rule for Kubernetes names

    if is_k8s_name(value, "label"):
        return value
    suggestion = re.sub(r"[^a-z0-9-]+", "-", value.lower()).strip("-")[:63].rstrip("-")
    raise UserError(
        f"--namespace {value!r} is not a Kubernetes namespace name (a DNS-1123 label: "
        "lowercase letters, digits and hyphens, at most 63, starting and ending with a letter "
        "or digit)",
        hint=f"try --namespace {suggestion}" if suggestion else "e.g. --namespace team-a",
    )


def open_kind(deps: Deps, target: Target) -> tuple[WorkloadKind, Context]:
    """The kind and its context, for the use cases beside this module (app/stragglers.py)."""
    return _open(deps, target)


def _open(deps: Deps, target: Target) -> tuple[WorkloadKind, Context]:
    """The kind the cluster's provider runs, and its context, once --namespace is checked."""
    from xcli.app.where import ref_for
    from xcli.app.workload_facts import LIVE_FACTS, cluster_live
    from xcli.workload.backends import KindGateways
    from xcli.workload.kinds import build, entry
    from xcli.workload.protocol import Context

    registry, provider = deps.registry, target.provider
    caps = registry.capabilities(provider)
    name = _kind_for(caps, provider, target.kind)
    check_namespace(target.namespace)
    if target.namespace != DEFAULT_NAMESPACE and not entry(name).namespaces:
        raise UserError(
            f"--namespace {target.namespace}: workloads on this cluster are processes on its "
            "VMs, which have no Kubernetes namespace",
            hint="drop --namespace (teams and namespaces are for GKE clusters)",
        )

    def vm_access() -> tuple[VmAccess, bool]:
        access = registry.vm_access(provider, registry.get(provider))
        if access is None:
            raise UserError(
                f"the {provider} provider runs workloads as JobSets, not on VMs",
                hint="drop --provider, or name a VM-style cluster",
            )
        return access, caps.cloud

    gateways = KindGateways(live=cluster_live(deps), sleep=deps.timing.sleep)
    kind = build(name, provider, caps, gateways)
    ctx = Context(
        location=target.where,
        provider=provider,
        say=deps.say,
        facts=deps.facts if deps.facts is not None else LIVE_FACTS,
        cluster_ref=lambda cluster: ref_for(registry, cluster, provider, target.where),
        namespace=target.namespace,
        vm_access=vm_access,
    )
    return kind, ctx


def _write_manifests(docs: tuple[object, ...], path: Path) -> None:
    """--output-manifest-file: the objects the plan applies, as multi-document YAML."""
    import yaml

    try:
        path.write_text(yaml.safe_dump_all(list(docs), sort_keys=False), encoding="utf-8")
    except OSError as exc:
        raise UserError(
            f"cannot write --output-manifest-file {path}: {exc.strerror}",
            hint="name a file in a folder you can write to",
        ) from None
