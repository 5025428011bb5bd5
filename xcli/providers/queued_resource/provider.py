"""Cloud TPU queued resources: TPU VMs without Kubernetes, same verbs as every provider."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Mapping
from datetime import datetime, timezone
from typing import Any

from xcli.errors import NotFoundError
from xcli.gateways.google.compute import ComputeGateway
from xcli.gateways.tpu.api import TpuGateway
from xcli.plan.cluster import ClusterRef, ClusterSummary, SshAccess, WaitLogin, Worker
from xcli.plan.contract import Handler, StepContext
from xcli.plan.model import Plan
from xcli.providers import reservation
from xcli.providers.queued_resource import access as tpu_access
from xcli.providers.queued_resource import planner as qr_plan
from xcli.providers.queued_resource.handlers import QrHandlers, Sleep, event_sleep, nodes_of
from xcli.providers.queued_resource.options import DEFAULT_KEY
from xcli.providers.queued_resource.terraform import TERRAFORM
from xcli.spec import ClusterSpec, format_duration, parse_duration
from xcli.terraform.support import TerraformSupport

# Failed or suspended requests keep holding quota until deleted
# (https://cloud.google.com/tpu/docs/queued-resources; https://github.com/marin-community/marin/issues/87).
HOLDS_QUOTA = ("FAILED", "SUSPENDED", "SUSPENDING")
# Right after SSH access is set up the guest agent may still be writing the key (gcloud retries
# ssh 10 x 5 s for the same reason, command_lib/compute/tpus/tpu_vm/ssh.py in
# https://github.com/google-cloud-sdk-unofficial/google-cloud-sdk): xcli ssh keeps retrying
# refused or failed connections for FRESH_RETRY_SECONDS during the first FRESH_FOR_SECONDS
# after the setup.
FRESH_RETRY_SECONDS = 60.0
FRESH_FOR_SECONDS = 600


class QueuedResourceProvider:
    name = "queued-resource"
    terraform: TerraformSupport | None = TERRAFORM

    def __init__(
        self,
        gateway: Callable[[str], TpuGateway] | None = None,
        *,
        sleep: Sleep = event_sleep,
        clock: Callable[[], float] = time.monotonic,
        now: Callable[[], datetime] | None = None,
        compute: ComputeGateway | None = None,
        say: Callable[[str], None] | None = None,
    ) -> None:
        self._gateway = gateway or (lambda zone: TpuGateway(zone))
        self.compute = compute or ComputeGateway()  # reservation reads; credentials on first use
        self.sleep = sleep
        self.clock = clock
        self.now = now or (lambda: datetime.now(timezone.utc))
        self.say = say or (lambda text: print(f"note: {text}", file=sys.stderr))

    def check_user_key(self, text: str) -> None:
        """UserKeys: `--ssh-key` names an existing private key file (access.py)."""
        from xcli.providers.queued_resource.access import check_user_key

        check_user_key(text)

    # -- plans (pure) ---------------------------------------------------------------------

    def plan_create(self, spec: ClusterSpec) -> Plan:
        return qr_plan.plan_create(spec)

    def plan_delete(self, ref: ClusterRef) -> Plan:
        return qr_plan.plan_delete(ref.project, ref.zone, ref.name)

    def plan_wait(self, ref: ClusterRef, timeout_seconds: int, login: WaitLogin) -> Plan:
        return qr_plan.plan_wait(ref.project, ref.zone, ref.name, login, timeout_seconds)

    def handlers(self, ref: ClusterRef) -> Mapping[str, Handler]:
        gateway = self._gateway(ref.zone)
        # Credentials first: without them nothing may run, not even the local step that
        # creates ~/.ssh/xcli_ed25519, and the failure is reported once, not once per step.
        getattr(gateway, "credentials", None)
        handlers = QrHandlers(gateway, sleep=self.sleep, clock=self.clock)

        def check(step: reservation.ReservationCheck, ctx: StepContext) -> Mapping[str, Any]:
            # a reservation compute.v1 does not know may be a Cloud TPU API one
            def tpu_list(url: str) -> Mapping[str, Any]:
                return gateway.raw("GET", url)

            return reservation.run_check(self.compute, step, ctx, tpu_list)

        return {**handlers.mapping(), reservation.ReservationCheck.kind: check}

    # -- reads --------------------------------------------------------------------------------

    def list_clusters(self, project: str, zone: str | None) -> list[ClusterSummary]:
        location = zone or "-"
        gw = self._gateway(location)
        rows = []
        for qr in gw.list_queued_resources(qr_plan.parent(project, location)):
            rows.append(self._summary(gw, qr))
        return sorted(rows, key=lambda r: (r.location, r.name))

    def _summary(self, gw: TpuGateway, qr: Mapping[str, Any]) -> ClusterSummary:
        parts = str(qr.get("name", "")).split("/")
        name, location = parts[-1], parts[3] if len(parts) > 3 else ""
        state = qr.get("state", {}).get("state", "STATE_UNSPECIFIED")
        shape = qr_shape(qr)
        capacity, remaining = shape["capacity"], ""
        if capacity == "on-demand":  # v2 cannot show flex-start; ask v2alpha1
            alpha = gw.get_queued_resource_alpha(str(qr["name"]))
            if alpha.get("provisioningModel") == "FLEX_START":
                capacity, remaining = "flex-start", self._remaining(alpha)
        status = state + (" (holds quota: delete it)" if state in HOLDS_QUOTA else "")
        return ClusterSummary(
            name=name,
            provider=self.name,
            location=location,
            accelerator=str(shape["accelerator"]),
            slices=int(shape["slices"]),
            capacity=capacity,
            status=status,
            extra={"age": self._age(qr), "flex_remaining": remaining},
        )

    def _age(self, qr: Mapping[str, Any]) -> str:
        created = qr.get("createTime")
        if not created:
            return ""
        when = datetime.fromisoformat(str(created).replace("Z", "+00:00"))
        return format_duration(max(0, int((self.now() - when).total_seconds())))

    def _remaining(self, alpha: Mapping[str, Any]) -> str:
        run = alpha.get("runDuration", {})
        if run.get("terminationTime"):
            end = datetime.fromisoformat(str(run["terminationTime"]).replace("Z", "+00:00"))
            return format_duration(max(0, int((end - self.now()).total_seconds())))
        if run.get("maxRunDuration"):  # not started yet: the whole run is left
            return format_duration(int(float(str(run["maxRunDuration"]).rstrip("s"))))
        return ""

    def _get(self, gw: TpuGateway, ref: ClusterRef) -> dict[str, Any]:
        name = f"{qr_plan.parent(ref.project, ref.zone)}/queuedResources/{ref.name}"
        qr = gw.get_queued_resource(name)
        if qr is None:
            raise NotFoundError(
                f"queued resource {ref.name} not found in {ref.zone}",
                hint="list them with xcli cluster list --provider queued-resource",
            )
        return qr

    def describe(self, ref: ClusterRef) -> Mapping[str, Any]:
        gw = self._gateway(ref.zone)
        qr = self._get(gw, ref)
        state = qr.get("state", {})
        info: dict[str, Any] = {"name": ref.name, "zone": ref.zone, **qr_shape(qr)}
        info["state"] = state.get("state", "STATE_UNSPECIFIED")
        reason = state.get("failedData", {}).get("error", {}).get("message")
        if reason:
            info["reason"] = reason
        info["slices"] = []
        if info["state"] == "ACTIVE":
            for index, node in enumerate(nodes_of(qr)):
                info["slices"].append(self._describe_node(gw, ref, index, node))
        return info

    def _describe_node(self, gw: TpuGateway, ref: ClusterRef, index: int, node: str) -> Any:
        full = f"{qr_plan.parent(ref.project, ref.zone)}/nodes/{node}"
        data = gw.get_node(full)
        names = [w["hostname"] for w in tpu_access.host_keys(gw.guest_attributes(full))]
        workers = []
        for w, endpoint in enumerate(data.get("networkEndpoints", [])):
            workers.append(
                {
                    "index": w,
                    "hostname": names[w] if w < len(names) else "",
                    "internal_ip": endpoint.get("ipAddress", ""),
                    "external_ip": endpoint.get("accessConfig", {}).get("externalIp", ""),
                }
            )
        return {
            "index": index,
            "node": node,
            "state": data.get("state", ""),
            "health": data.get("health", "HEALTH_UNSPECIFIED"),
            "workers": workers,
        }

    def workers(self, ref: ClusterRef) -> list[Worker]:
        """Every worker of every slice, with the SSH user xcli registered for its key."""
        gw = self._gateway(ref.zone)
        qr = self._get(gw, ref)
        access = tpu_access.recall_access(ref.project, ref.zone, ref.name)
        key_file = tpu_access.key_path(access.get("key_file", DEFAULT_KEY))
        public = tpu_access.ensure_key(key_file, create=False)
        accelerator = qr_shape(qr)["accelerator"] or None
        out = []
        for index, node in enumerate(nodes_of(qr)):
            data = gw.get_node(f"{qr_plan.parent(ref.project, ref.zone)}/nodes/{node}")
            user = access.get("user") if access.get("os_login") else None
            user = user or tpu_access.user_for_key(data.get("metadata", {}), public)
            user = user or access.get("user")
            for w, endpoint in enumerate(data.get("networkEndpoints", [])):
                internal = endpoint.get("ipAddress") or None
                external = endpoint.get("accessConfig", {}).get("externalIp") or None
                out.append(
                    Worker(
                        slice=index,
                        index=w,
                        host=str(external or internal),
                        user=user,
                        internal_ip=internal,
                        external_ip=external,
                        accelerator=accelerator,
                    )
                )
        return out

    def repin_moved(self, ref: ClusterRef, workers: list[Worker]) -> None:
        """When a worker's address is not the one pinned (a node repaired or recreated), pin
        every worker again from the source of truth, the TPU API's guest attributes (the keys
        the VMs published), never from what answers on the new address. Only for a cluster
        whose keys xcli pinned (its access record); a live run only (app/record.py)."""
        if not tpu_access.recall_access(ref.project, ref.zone, ref.name):
            return
        gw = self._gateway(ref.zone)
        nodes = nodes_of(self._get(gw, ref))
        addresses = {
            f"{nodes[w.slice]}/w{w.index}": [w.internal_ip or "", w.external_ip or ""]
            for w in workers
            if w.slice < len(nodes)
        }
        file = tpu_access.known_hosts_file()
        owner = f"xcli:{ref.project}/{ref.zone}/{ref.name}/"
        changed = tpu_access.moved(addresses, tpu_access.pinned_hosts(file, owner))
        if not changed:
            return
        entries = []
        for node in nodes:
            full = f"{qr_plan.parent(ref.project, ref.zone)}/nodes/{node}"
            for w, worker in enumerate(tpu_access.host_keys(gw.guest_attributes(full))):
                tag = f"{node}/w{w}"
                entries.append((tag, addresses.get(tag, []), worker["keys"].splitlines()))
        count = tpu_access.pin(file, owner, entries)
        self.say(
            f"the address of {len(changed)} worker(s) of {ref.name} changed ({changed[0]}, ...): "
            f"pinned {count} host keys again from the TPU API's guest attributes"
        )

    def ssh_access(self, ref: ClusterRef) -> SshAccess:
        """xcli's key for this cluster (the one its nodes' ssh-keys or its OS Login profile
        carry), the pinned host keys, the user the key was registered for, and a longer
        connection retry shortly after setup. Read from local records only."""
        access = tpu_access.recall_access(ref.project, ref.zone, ref.name)
        key_file = tpu_access.key_path(access.get("key_file", DEFAULT_KEY))
        retry = None
        if access.get("at"):
            when = datetime.fromisoformat(access["at"].replace("Z", "+00:00"))
            if (self.now() - when).total_seconds() < FRESH_FOR_SECONDS:
                retry = FRESH_RETRY_SECONDS
        known = tpu_access.known_hosts_file()
        # xcli pinned every worker's host key when it set up access (the access record says so):
        # an unknown key is then refused (issue 26 item 10), and workers() re-pins moved workers
        pinned = bool(access)
        return SshAccess(
            key_file, known, access.get("user") or None, retry_for=retry, pinned=pinned
        )


def qr_shape(qr: Mapping[str, Any]) -> dict[str, Any]:
    specs = qr.get("tpu", {}).get("nodeSpec", [{}])
    tier = "on-demand"
    if "spot" in qr:
        tier = "spot"
    elif "guaranteed" in qr:
        tier = "guaranteed"
    elif qr.get("reservationName"):
        tier = "reservation " + str(qr["reservationName"]).rsplit("/", 1)[-1]
    return {
        "accelerator": specs[0].get("node", {}).get("acceleratorType", ""),
        "slices": len(nodes_of(qr)),
        "capacity": tier,
    }


def timeout_seconds(text: str | None) -> int:
    return parse_duration(text, "--timeout") if text else qr_plan.DEFAULT_WAIT
