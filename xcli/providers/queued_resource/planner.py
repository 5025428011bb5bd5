"""Pure plans for Cloud TPU queued resources: create, wait, delete.

Facts behind the request shapes, from the Cloud TPU REST reference
(https://cloud.google.com/tpu/docs/reference/rest/v2/projects.locations.queuedResources and
https://cloud.google.com/tpu/docs/reference/rest/v2alpha1/projects.locations.queuedResources),
https://cloud.google.com/tpu/docs/queued-resources and
https://cloud.google.com/tpu/docs/request-using-flex-start:
- one QueuedResource per cluster, `queuedResourceId` = cluster name (a query parameter);
- a single slice is one node spec with `nodeId`; N slices are one node spec with
  `multisliceParams {nodeCount, nodeIdPrefix}` (v2) and nodes named PREFIX-0..N-1;
- the tier is a oneof: `spot {}`, `guaranteed {minDuration}`, `reservationName`, or nothing for
  on-demand; flex-start exists only in v2alpha1 (`provisioningModel: FLEX_START`,
  `runDuration.maxRunDuration`), where the multislice object is `multiNodeParams` instead;
- the queueing window is a oneof too (`validUntilDuration`, `validAfterDuration`,
  `validAfterTime`, `validInterval`).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from xcli.catalog.zones import check_flex_start
from xcli.errors import UserError
from xcli.plan.cluster import WaitLogin
from xcli.plan.model import Plan, Ref, Step
from xcli.plan.steps import ApiCall, LocalAction, Text, Wait
from xcli.plan.tpu_steps import TpuSshAccess
from xcli.providers import reservation
from xcli.providers.queued_resource import options as qr_opts
from xcli.providers.queued_resource.login_plan import login_steps
from xcli.providers.queued_resource.options import QrOptions
from xcli.spec import ClusterSpec, check_name

ROOT = "https://tpu.googleapis.com"
QR_CREATE = "tpu.projects.locations.queuedResources.create"
QR_GET = "tpu.projects.locations.queuedResources.get"
QR_DELETE = "tpu.projects.locations.queuedResources.delete"
CLOUD_PLATFORM = "https://www.googleapis.com/auth/cloud-platform"
NAME_LIMIT = 63
DEFAULT_WAIT = 24 * 3600  # how long create waits for ACTIVE when no queueing window is given
PROVISIONING_ALLOWANCE = 2 * 3600  # after the queueing window closes, time to provision


def parent(project: str, zone: str) -> str:
    return f"projects/{project}/locations/{zone}"


def qr_url(project: str, zone: str, name: str, version: str = "v2") -> str:
    return f"{ROOT}/{version}/{parent(project, zone)}/queuedResources/{name}"


def node_names(name: str, num_slices: int) -> tuple[str, ...]:
    if num_slices == 1:
        return (name,)
    return tuple(f"{name}-{i}" for i in range(num_slices))


def check_spec(spec: ClusterSpec) -> QrOptions:
    """Everything about a spec that can be wrong, checked before any request."""
    accel = spec.accelerator
    if accel.kind != "tpu":
        raise UserError(
            f"{accel.name} is a {accel.kind.upper()} shape; queued resources are for Cloud TPUs",
            hint=f"use --provider gke for {accel.kind.upper()} shapes",
        )
    if spec.num_slices < 1:
        raise UserError(
            "--num-slices 0 (a cluster without accelerators) is for --provider gke",
            hint="pass --num-slices 1 or more",
        )
    if accel.tpu_accelerator_type is None:
        raise UserError(
            f"the Cloud TPU API does not offer {accel.family} ({accel.name})",
            hint=f"{accel.family} is available through GKE: use --provider gke",
        )
    suffix = len(f"-{spec.num_slices - 1}") if spec.num_slices > 1 else 0
    check_name(spec.name, "cluster", NAME_LIMIT - suffix)
    capacity = spec.capacity
    if capacity.kind == "flex-start" and capacity.max_run_duration is None:
        raise UserError(
            "--flex-start needs --max-run-duration for queued resources",
            hint="e.g. --flex-start --max-run-duration 6h (at most 7d)",
        )
    if capacity.kind == "flex-start":
        # Cloud TPU offers flex-start for v6e and v5e in four zones only (zones.json flex_start)
        check_flex_start(spec.accelerator, spec.zone)
    if len(capacity.reservations) > 1:
        raise UserError(
            "a queued resource takes one reservation",
            hint="name one with --reservation, or use --provider gke, whose node pools can "
            "fill several in order",
        )
    if capacity.reservation and "/reservationBlocks/" in capacity.reservation:
        raise UserError(
            "Cloud TPU reservations have no blocks",
            hint="pass the reservation name, projects/P/reservations/R, or - for any",
        )
    return qr_opts.of(spec)


def _reservation(spec: ClusterSpec) -> str:
    value = spec.capacity.reservation or "-"
    project, name = spec.project, value
    if value.startswith("projects/"):
        _, project, _, name = value.split("/", 3)
    return f"projects/{project}/locations/{spec.zone}/reservations/{name}"


def _node(spec: ClusterSpec, opts: QrOptions) -> dict[str, Any]:
    accel = spec.accelerator
    network: dict[str, Any] = {}
    if opts.network:
        network["network"] = opts.network
    if opts.subnetwork:
        network["subnetwork"] = opts.subnetwork
    network["enableExternalIps"] = not opts.internal_ips
    node: dict[str, Any] = {
        "acceleratorType": accel.tpu_accelerator_type,
        "runtimeVersion": opts.runtime_version or accel.runtime_version,
        "networkConfig": network,
    }
    if opts.service_account or opts.scopes:
        account: dict[str, Any] = {"email": opts.service_account or "default"}
        account["scope"] = list(opts.scopes or (CLOUD_PLATFORM,))
        node["serviceAccount"] = account
    node["labels"] = {"created-by": "xcli", "xcli-cluster": spec.name, **dict(opts.labels)}
    if opts.tags:
        node["tags"] = list(opts.tags)
    if opts.metadata:
        node["metadata"] = dict(opts.metadata)
    return node


def _queueing(opts: QrOptions) -> dict[str, str] | None:
    if opts.valid_after_time and opts.valid_until is not None:
        start = datetime.strptime(opts.valid_after_time, "%Y-%m-%dT%H:%M:%SZ")
        end = start + timedelta(seconds=opts.valid_until)
        interval = {"startTime": opts.valid_after_time, "endTime": f"{end.isoformat()}Z"}
        return {"validInterval": interval}  # type: ignore[dict-item]
    if opts.valid_after_time:
        return {"validAfterTime": opts.valid_after_time}
    if opts.valid_after is not None:
        return {"validAfterDuration": f"{opts.valid_after}s"}
    if opts.valid_until is not None:
        return {"validUntilDuration": f"{opts.valid_until}s"}
    return None


def queued_resource_body(spec: ClusterSpec, opts: QrOptions) -> dict[str, Any]:
    """The REST body of queuedResources.create (v2, or v2alpha1 for flex-start)."""
    alpha = spec.capacity.kind == "flex-start"
    node_spec: dict[str, Any] = {"parent": parent(spec.project, spec.zone)}
    if spec.num_slices == 1:
        node_spec["nodeId"] = spec.name
    else:
        multi = "multiNodeParams" if alpha else "multisliceParams"
        node_spec[multi] = {"nodeCount": spec.num_slices, "nodeIdPrefix": spec.name}
    node_spec["node"] = _node(spec, opts)
    body: dict[str, Any] = {"tpu": {"nodeSpec": [node_spec]}}
    capacity = spec.capacity
    if capacity.kind == "spot":
        body["spot"] = {}
    elif capacity.kind == "guaranteed":
        minimum = capacity.min_duration
        body["guaranteed"] = {"minDuration": f"{minimum}s"} if minimum else {}
    elif capacity.kind == "reservation":
        body["reservationName"] = _reservation(spec)
    elif alpha:
        body["provisioningModel"] = "FLEX_START"
        body["runDuration"] = {"maxRunDuration": f"{capacity.max_run_duration}s"}
    queueing = _queueing(opts)
    if queueing:
        body["queueingPolicy"] = queueing
    return body


def wait_timeout(opts: QrOptions) -> int:
    if opts.valid_until is None:
        return DEFAULT_WAIT
    return (opts.valid_after or 0) + opts.valid_until + PROVISIONING_ALLOWANCE


def _key_step(opts: QrOptions) -> LocalAction:
    return LocalAction(
        id="ssh-key",
        summary=f"make sure the SSH key {opts.ssh_key} exists (created if missing)",
        action="ensure_ssh_key",
        args={"path": opts.ssh_key, "create": opts.ssh_key == "~/.ssh/xcli_ed25519"},
    )


def _access_steps(
    project: str,
    zone: str,
    name: str,
    opts: QrOptions,
    nodes: tuple[str, ...] | Ref,
    login: tuple[list[Step], Text],
) -> list[Step]:
    steps, user = login
    how = "use OS Login for" if opts.os_login else "add the SSH key to"
    return [
        TpuSshAccess(
            id="ssh-access",
            summary=f"{how} the nodes of {name} and pin their host keys",
            after=("ssh-key", "wait-active", *(s.id for s in steps)),
            api_base=f"{ROOT}/v2/{parent(project, zone)}",
            queued_resource=name,
            nodes=nodes,
            user=user,
            public_key=Ref("ssh-key", "public_key"),
            key_file=opts.ssh_key,
            os_login=opts.os_login,
        )
    ]


def _wait_step(project: str, zone: str, name: str, timeout: int, after: tuple[str, ...]) -> Wait:
    return Wait(
        id="wait-active",
        summary=f"wait for queued resource {name} to be ACTIVE "
        "(WAITING_FOR_RESOURCES -> PROVISIONING -> ACTIVE)",
        after=after,
        api=QR_GET,
        url=qr_url(project, zone, name),
        until="state.state == ACTIVE",
        timeout_seconds=timeout,
    )


def plan_create(spec: ClusterSpec) -> Plan:
    opts = check_spec(spec)
    alpha = spec.capacity.kind == "flex-start"
    version = "v2alpha1" if alpha else "v2"
    base = f"{ROOT}/{version}/{parent(spec.project, spec.zone)}/queuedResources"
    shape = f"{spec.num_slices} x {spec.accelerator.name}" if spec.num_slices > 1 else ""
    login = login_steps(spec.project, opts)
    # the reservation pre-flight reads come first: nothing is requested before they pass
    pre = reservation.check_step(spec, tuple(range(spec.num_slices)), tpu_api=True)
    steps: list[Step] = [
        *pre,
        _key_step(opts),
        *login[0],
        ApiCall(
            id="create",
            summary=f"request queued resource {spec.name} "
            f"({shape or spec.accelerator.name}, {spec.capacity.kind})",
            after=(*(p.id for p in pre), "ssh-key", *(s.id for s in login[0])),
            api=QR_CREATE,
            method="POST",
            url=f"{base}?queuedResourceId={spec.name}",
            body=queued_resource_body(spec, opts),
            accept=("ALREADY_EXISTS",),
        ),
    ]
    notes = []
    if alpha:
        notes.append("flex-start is sent to the v2alpha1 REST API (the v2 API cannot express it)")
        row = check_flex_start(spec.accelerator, spec.zone)
        notes.append(
            f"flex-start draws on the project's preemptible {spec.accelerator.family} quota "
            f"in {spec.zone} (64 cores by default; Cloud TPU's flex-start page), not on-demand "
            f"quota; Cloud TPU offers it there for {row.use}"
        )
    if opts.wait:
        steps.append(
            _wait_step(spec.project, spec.zone, spec.name, wait_timeout(opts), ("create",))
        )
        nodes = node_names(spec.name, spec.num_slices)
        steps += _access_steps(spec.project, spec.zone, spec.name, opts, nodes, login)
    else:
        notes.append(f"--async: wait later with `xcli cluster wait --cluster {spec.name}`")
    return Plan(
        title=f"create queued resource {spec.name} in {spec.zone}",
        steps=tuple(steps),
        notes=tuple(notes),
    )


def plan_wait(project: str, zone: str, name: str, given: WaitLogin, timeout: int) -> Plan:
    """Wait for an existing queued resource, then set up SSH access to all its nodes."""
    opts = qr_opts.wait_options(given.ssh_key, given.ssh_user, given.os_login)
    login = login_steps(project, opts)
    steps: list[Step] = [
        _key_step(opts),
        *login[0],
        _wait_step(project, zone, name, timeout, ()),
    ]
    steps += _access_steps(project, zone, name, opts, Ref("wait-active", "nodes"), login)
    return Plan(title=f"wait for queued resource {name} in {zone}", steps=tuple(steps))


def plan_delete(project: str, zone: str, name: str) -> Plan:
    url = qr_url(project, zone, name)
    return Plan(
        title=f"delete queued resource {name} in {zone}",
        steps=(
            ApiCall(
                id="delete",
                summary=f"delete queued resource {name} and its TPU VMs (force)",
                api=QR_DELETE,
                method="DELETE",
                url=f"{url}?force=true",
                accept=("NOT_FOUND",),
            ),
            *gone_steps(project, zone, name),
        ),
    )


def gone_steps(project: str, zone: str, name: str, keys: str = "host keys") -> tuple[Step, Step]:
    """After the `delete` step: wait until the queued resource is gone, then forget its VMs'
    host keys (plan_delete, and the recovery's re-create, which says "old host keys")."""
    return (
        Wait(
            id="wait-deleted",
            summary=f"wait until {name} is gone",
            after=("delete",),
            api=QR_GET,
            url=qr_url(project, zone, name),
            until="NOT_FOUND",
            timeout_seconds=3600,
        ),
        LocalAction(
            id="forget-host-keys",
            summary=f"remove the {keys} of {name} from xcli's known_hosts",
            after=("wait-deleted",),
            action="forget_host_keys",
            args={"known_hosts": "known_hosts", "owner": f"xcli:{project}/{zone}/{name}/"},
        ),
    )
