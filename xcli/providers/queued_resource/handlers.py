"""Live handlers for queued-resource plans: they do exactly what each step says.

Waiting polls the queued resource itself (tolerant parsing), not the create LRO, whose strict
parser (google-api-core's OperationsRestTransport, ignore_unknown_fields=False) breaks on
fields newer than the client. Every wait goes through xcli.gateways.backoff (one mechanism, one
cancellable sleep); sleep and clock are injected so tests never sleep. Ctrl-C ends any wait at
once with Interrupted, whose hint says what keeps running in the cloud and how to pick it up
again.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from xcli.errors import CloudError, InternalError, Interrupted, UserError
from xcli.gateways.backoff import (
    RetryPolicy,
    Sleep,
    Timing,
    event_sleep,
    growing,
    poll,
    retry_call,
)
from xcli.gateways.tpu.account import TpuAccount
from xcli.gateways.tpu.api import TpuGateway, resource_name
from xcli.plan.contract import StepContext
from xcli.plan.steps import ApiCall, LocalAction, Wait
from xcli.plan.tpu_steps import CallerEmail, TpuSshAccess
from xcli.providers.queued_resource import access as tpu_access
from xcli.providers.queued_resource.login import LOGIN_APIS, LoginHandlers
from xcli.providers.queued_resource.planner import QR_CREATE, QR_DELETE
from xcli.spec import format_duration

__all__ = ["QrHandlers", "Sleep", "event_sleep", "nodes_of"]
CONFLICT = ("ABORTED", "ALREADY_EXISTS", "CONFLICT")
SUSPENDED_WHY = (
    "its flex-start run time (--max-run-duration) is used up, or its capacity was reclaimed; "
    "its TPU VMs are gone"
)


def nodes_of(qr: Mapping[str, Any]) -> list[str]:
    """Node ids of a queued resource, from its node specs."""
    names: list[str] = []
    for spec in qr.get("tpu", {}).get("nodeSpec", []):
        multi = spec.get("multisliceParams") or spec.get("multiNodeParams")
        if spec.get("nodeId"):
            names.append(spec["nodeId"])
        elif multi:
            prefix = multi.get("nodeIdPrefix") or qr.get("name", "").rsplit("/", 1)[-1]
            names += [f"{prefix}-{i}" for i in range(int(multi.get("nodeCount", 1)))]
    return names


def shape(qr: Mapping[str, Any]) -> dict[str, Any]:
    """What must match for an existing queued resource to count as the one asked for."""
    specs = qr.get("tpu", {}).get("nodeSpec", [{}])
    tier = next((t for t in ("spot", "guaranteed", "reservationName") if t in qr), "on-demand")
    return {
        "accelerator": specs[0].get("node", {}).get("acceleratorType"),
        "slices": len(nodes_of(qr)),
        "capacity": tier,
    }


class QrHandlers:
    def __init__(
        self,
        gateway: TpuGateway,
        *,
        sleep: Sleep = event_sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.gw = gateway
        self.sleep = sleep
        self.clock = clock
        self.timing = Timing(sleep=sleep, clock=clock)
        self.login = LoginHandlers(TpuAccount(gateway))

    def mapping(self) -> dict[str, Any]:
        return {
            ApiCall.kind: self.api_call,
            Wait.kind: self.wait,
            LocalAction.kind: self.local,
            TpuSshAccess.kind: self.ssh_access,
            CallerEmail.kind: self.login.caller,
        }

    # -- api_call ---------------------------------------------------------------------------

    def api_call(self, step: ApiCall, ctx: StepContext) -> dict[str, Any]:
        if step.api == QR_CREATE:
            return self._create(step, ctx)
        if step.api in LOGIN_APIS:
            return self.login.api_call(step, ctx)
        if step.api == QR_DELETE:
            # the plan's URL says whether to force (plan_delete does; a re-create of a
            # SUSPENDED queued resource does not need to, providers/queued_resource/recover.py)
            url, _, query = str(step.url).partition("?")
            force = "force=true" in query.split("&")
            gone = not self.gw.delete_queued_resource(resource_name(url), force=force)
            return {"already_gone": gone}
        raise InternalError(f"no handler for {step.api}")

    def _create(self, step: ApiCall, ctx: StepContext) -> dict[str, Any]:
        body = dict(step.body or {})
        url = str(step.url)
        name = url.split("queuedResourceId=")[1].split("&")[0]
        try:
            operation = self.gw.create_queued_resource(url, body)
        except CloudError as exc:
            if exc.status not in CONFLICT:
                raise
            parent = resource_name(url.split("?")[0])
            existing = self.gw.get_queued_resource(f"{parent}/{name}")
            if existing is None:
                raise
            want, have = shape(body), shape(existing)
            if want != have:
                diff = ", ".join(
                    f"{k} {have[k]} (asked: {want[k]})" for k in want if want[k] != have[k]
                )
                raise CloudError(
                    f"queued resource {name} already exists with a different shape: {diff}",
                    hint=f"delete it first (xcli cluster delete --provider queued-resource "
                    f"--cluster {name}) or choose another --cluster name",
                    status="ALREADY_EXISTS",
                ) from None
            ctx.report("already exists with the same shape; using it")
            return {"operation": "", "created": False}
        ctx.report(f"request accepted ({operation.rsplit('/', 1)[-1]})")
        return {"operation": operation, "created": True}

    # -- wait -------------------------------------------------------------------------------

    def wait(self, step: Wait, ctx: StepContext) -> dict[str, Any]:
        name = resource_name(str(step.url))
        if step.until == "NOT_FOUND":
            return self._poll(name, step.timeout_seconds, ctx, until_gone=True)
        return self._poll(name, step.timeout_seconds, ctx, until_gone=False)

    def _poll(
        self, name: str, timeout: int, ctx: StepContext, *, until_gone: bool
    ) -> dict[str, Any]:
        short = name.rsplit("/", 1)[-1]
        start, seen = self.clock(), {"state": ""}

        def check() -> dict[str, Any] | None:
            qr = self.gw.get_queued_resource(name)
            waited = format_duration(int(self.clock() - start))
            if qr is None:
                if until_gone:
                    return {"state": "DELETED"}
                raise CloudError(
                    f"queued resource {short} does not exist",
                    hint="create it with xcli cluster create --provider queued-resource",
                    status="NOT_FOUND",
                )
            state = qr.get("state", {}).get("state", "STATE_UNSPECIFIED")
            if state != seen["state"]:
                ctx.report(f"{short}: {state} after {waited}")
                seen["state"] = state
            return None if until_gone else self._check_state(short, state, qr)

        def too_long(seconds: float) -> CloudError:
            return CloudError(
                f"queued resource {short} is still {seen['state']} after "
                f"{format_duration(int(seconds))}",
                hint=f"it stays queued; wait again with xcli cluster wait --provider "
                f"queued-resource --cluster {short}, or delete it",
                status="DEADLINE_EXCEEDED",
            )

        try:
            return poll(
                check,
                delays=growing(5.0, 1.5, 60.0),
                timeout=timeout,
                timing=self.timing,
                cancelled=ctx.cancelled,
                on_timeout=too_long,
            )
        except (Interrupted, KeyboardInterrupt):
            what = "being deleted" if until_gone else f"queued ({seen['state'] or 'unknown'})"
            raise Interrupted(
                f"stopped waiting; queued resource {short} stays {what}",
                hint=f"resume with xcli cluster wait --provider queued-resource --cluster "
                f"{short}, or delete it with xcli cluster delete",
            ) from None

    @staticmethod
    def _check_state(short: str, state: str, qr: Mapping[str, Any]) -> dict[str, Any] | None:
        if state == "ACTIVE":
            return {"state": state, "nodes": nodes_of(qr)}
        delete = f"xcli cluster delete --provider queued-resource --cluster {short} --yes"
        if state == "FAILED":
            error = qr.get("state", {}).get("failedData", {}).get("error", {})
            reason = error.get("message") or "the API gave no reason"
            raise CloudError(
                f"queued resource {short} FAILED: {reason}",
                hint=f"it may still hold quota: delete it ({delete}), then fix the cause",
                status="FAILED",
            )
        if state in ("SUSPENDING", "SUSPENDED"):
            raise CloudError(
                f"queued resource {short} is {state}: {SUSPENDED_WHY}",
                hint=f"delete it ({delete}) and create it again for more time",
                status=state,
            )
        if state == "DELETING":
            raise CloudError(f"queued resource {short} is being deleted", status=state)
        return None

    # -- local ------------------------------------------------------------------------------

    def local(self, step: LocalAction, ctx: StepContext) -> dict[str, Any]:
        if step.action == "ensure_ssh_key":
            path = tpu_access.key_path(str(step.args["path"]))
            public = tpu_access.ensure_key(path, bool(step.args.get("create")))
            return {"public_key": public, "key_file": str(path)}
        if step.action == "forget_host_keys":
            file = tpu_access.known_hosts_file(str(step.args["known_hosts"]))
            return {"removed": tpu_access.forget(file, str(step.args["owner"]))}
        raise InternalError(f"no handler for local action {step.action}")

    # -- ssh access -------------------------------------------------------------------------

    def ssh_access(self, step: TpuSshAccess, ctx: StepContext) -> dict[str, Any]:
        base = resource_name(step.api_base)
        # With OS Login the key is already in the caller's profile: no metadata change.
        entry = None if step.os_login else f"{step.user}:{step.public_key}"
        nodes = list(step.nodes)  # type: ignore[arg-type]
        # Nodes are independent: a 4-slice request sets up its slices side by side.
        with ThreadPoolExecutor(max_workers=min(8, max(1, len(nodes)))) as pool:
            found = list(
                pool.map(lambda n: self._node_access(f"{base}/nodes/{n}", entry, ctx), nodes)
            )
        pins = [
            (f"{node}/w{index}", hosts, keys)
            for node, workers in zip(nodes, found, strict=True)
            for index, (hosts, keys) in enumerate(workers)
        ]
        project, zone = base.split("/")[1], base.split("/")[3]
        owner = f"xcli:{project}/{zone}/{step.queued_resource}/"
        count = tpu_access.pin(tpu_access.known_hosts_file(step.known_hosts), owner, pins)
        tpu_access.remember_access(
            project, zone, step.queued_resource, str(step.user), step.key_file, step.os_login
        )
        ctx.report(
            f"first trust: pinned {count} host keys of {len(pins)} workers from the TPU API's "
            "guest attributes; SSH checks them strictly from now on"
        )
        return {"workers": len(pins), "host_keys": count}

    def _node_access(
        self, node: str, entry: str | None, ctx: StepContext
    ) -> list[tuple[list[str], list[str]]]:
        """Add our key to one node (unless OS Login); return (hosts, host key lines) per worker."""
        if entry is not None:
            self.add_key(node, entry, ctx)
        info, workers = self.host_keys(node, ctx)
        out = []
        for index, endpoint in enumerate(info.get("networkEndpoints", [])):
            hosts = [endpoint.get("ipAddress", ""), _external(endpoint)]
            keys = workers[index]["keys"].splitlines() if index < len(workers) else []
            out.append((hosts, keys))
        return out

    def add_key(self, node: str, entry: str, ctx: StepContext) -> bool:
        """Append our key to the node's ssh-keys (never dropping others); retry on 409 (another
        metadata update won the race: read again, merge again) for up to a minute."""
        short = node.rsplit("/", 1)[-1]

        def once() -> bool:
            metadata = self.gw.get_node(node).get("metadata", {})
            if metadata.get("enable-oslogin", "").upper() == "TRUE":
                raise UserError(
                    f"{short} uses OS Login (node metadata enable-oslogin=TRUE): it ignores "
                    "SSH keys in ssh-keys metadata",
                    hint="run xcli cluster wait --os-login: xcli imports the key with the OS "
                    "Login API instead",
                )
            merged = tpu_access.merge_ssh_keys(metadata, entry)
            if merged is None:
                return False
            operation = self.gw.set_node_metadata(node, merged)
            self.wait_operation(short, operation, ctx)
            ctx.report(f"{short}: SSH key added")
            return True

        def conflict(exc: BaseException) -> bool:
            return isinstance(exc, CloudError) and exc.status in CONFLICT

        policy = RetryPolicy(initial=2.0, multiplier=1.5, maximum=10.0, deadline=60.0)
        timing = Timing(sleep=self.sleep, clock=self.clock, rand=lambda: 0.5)
        return retry_call(
            once,
            conflict,
            timing,
            policy,
            ctx.cancelled,
            ctx.report,
            what=f"{short}: metadata busy",
        )

    def wait_operation(
        self, short: str, name: str, ctx: StepContext, timeout: float = 600.0
    ) -> None:
        """Poll the metadata update until done, so the key is on the VMs when create returns."""
        if not name:
            return

        def check() -> bool | None:
            operation = self.gw.get_operation(name)
            if not operation.get("done"):
                return None
            error = operation.get("error")
            if error:
                raise CloudError(
                    f"{short}: adding the SSH key failed: {error.get('message', error)}",
                    hint="run xcli cluster wait to try again",
                    status=str(error.get("code", "")),
                )
            return True

        def too_long(_seconds: float) -> CloudError:
            return CloudError(
                f"{short}: the SSH key update is still running after {int(timeout)}s",
                hint="run xcli cluster wait to check again",
                status="DEADLINE_EXCEEDED",
            )

        try:
            poll(
                check,
                delays=growing(1.0, 2.0, 10.0),
                timeout=timeout,
                timing=self.timing,
                cancelled=ctx.cancelled,
                on_timeout=too_long,
            )
        except (Interrupted, KeyboardInterrupt):
            raise Interrupted(
                f"{short}: stopped waiting for the SSH key update",
                hint="the update goes on in the cloud; run xcli cluster wait --provider "
                "queued-resource to finish setting up SSH",
            ) from None

    def host_keys(
        self, node: str, ctx: StepContext, timeout: float = 900.0
    ) -> tuple[dict[str, Any], list[dict[str, str]]]:
        """The node and its workers' host keys, once every worker has published them."""
        short = node.rsplit("/", 1)[-1]

        def check() -> tuple[dict[str, Any], list[dict[str, str]]] | None:
            info = self.gw.get_node(node)
            workers = tpu_access.host_keys(self.gw.guest_attributes(node))
            expected = len(info.get("networkEndpoints", []))
            if len(workers) >= expected and all(w["keys"] for w in workers[:expected]):
                return info, workers
            ctx.report(f"{short}: waiting for host keys")
            return None

        def too_long(_seconds: float) -> UserError:
            return UserError(
                f"{short}: workers have not published SSH host keys yet",
                hint="run xcli cluster wait again in a few minutes",
            )

        try:
            return poll(
                check,
                delays=growing(5.0, 1.5, 30.0),
                timeout=timeout,
                timing=self.timing,
                cancelled=ctx.cancelled,
                on_timeout=too_long,
            )
        except (Interrupted, KeyboardInterrupt):
            raise Interrupted(
                f"{short}: stopped waiting for SSH host keys",
                hint="the TPU VMs keep running; run xcli cluster wait --provider "
                "queued-resource to pin their host keys",
            ) from None


def _external(endpoint: Mapping[str, Any]) -> str:
    return str(endpoint.get("accessConfig", {}).get("externalIp", ""))
