"""`workload create --recover` on queued resources: re-create a preempted slice. Pure.

A Spot or preemptible TPU is taken back by the Cloud TPU service: its queued resource goes
SUSPENDING -> SUSPENDED with `stateInitiator: SERVICE` and is "no longer eligible for further
allocation"; it must be deleted and created again (tpu.v2 discovery document,
QueuedResourceState; https://cloud.google.com/tpu/docs/queued-resources). A SUSPENDED queued
resource needs no `force` to be deleted. A suspension the user asked for (`USER`) is left
alone, as is a FAILED one (its cause needs reading first).

The new request is the old one: same `queuedResourceId` (the cluster's name) and the body
xcli sent, read back from the queued resource and kept to the fields `queued_resource_body`
writes (planner.py), so a queued resource xcli created gets exactly its `cluster create`
request again (tests compare it with that dry-run's body). The steps after the create are
`cluster wait`'s: wait for ACTIVE, then SSH access, which forgets the old host keys and pins
the new VMs' keys.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from xcli.plan.model import Plan, Ref, Step
from xcli.plan.steps import ApiCall
from xcli.providers.queued_resource import planner as qr
from xcli.providers.queued_resource.login_plan import login_steps
from xcli.providers.queued_resource.options import qr_options

LOST = ("SUSPENDING", "SUSPENDED")
# the create body's fields (planner.queued_resource_body and _node); the rest is output
BODY_KEYS = ("tpu", "spot", "guaranteed", "reservationName", "provisioningModel",
             "runDuration", "queueingPolicy")  # fmt: skip
NODE_SPEC_KEYS = ("parent", "nodeId", "multisliceParams", "multiNodeParams", "node")
NODE_KEYS = ("acceleratorType", "runtimeVersion", "networkConfig", "serviceAccount", "labels",
             "tags", "metadata")  # fmt: skip
NETWORK_KEYS = ("network", "subnetwork", "enableExternalIps")
RECREATE_TIMEOUT = 6 * 3600  # spot capacity may take hours to come back


def lost_capacity(queued: Mapping[str, Any]) -> str | None:
    """Why the slice is gone and may be re-created, or None (running, or not the service's)."""
    state = queued.get("state") or {}
    if state.get("state") not in LOST or state.get("stateInitiator") == "USER":
        return None
    return f"{state['state']} by the Cloud TPU service (preempted)"


def recreate_body(queued: Mapping[str, Any]) -> dict[str, Any]:
    """The create request's body, from the queued resource as `get` returns it."""
    body = {k: queued[k] for k in BODY_KEYS if k in queued}
    specs = []
    for spec in (queued.get("tpu") or {}).get("nodeSpec") or []:
        out = {k: spec[k] for k in NODE_SPEC_KEYS if k in spec}
        node = {k: spec["node"][k] for k in NODE_KEYS if k in (spec.get("node") or {})}
        if "networkConfig" in node:
            node["networkConfig"] = {
                k: node["networkConfig"][k] for k in NETWORK_KEYS if k in node["networkConfig"]
            }
        out["node"] = node
        specs.append(out)
    body["tpu"] = {"nodeSpec": specs}
    return body


def plan_recreate(project: str, zone: str, name: str, queued: Mapping[str, Any]) -> Plan:
    """Delete the suspended queued resource, create it again with the same request, wait for
    it and set up SSH access to its new VMs (their host keys pinned afresh)."""
    url = qr.qr_url(project, zone, name)
    body = recreate_body(queued)
    version = "v2alpha1" if body.get("provisioningModel") == "FLEX_START" else "v2"
    opts = qr_options({})  # the defaults `cluster wait` uses: xcli's key, no OS Login
    login = login_steps(project, opts)
    specs = body["tpu"]["nodeSpec"]
    slices = sum(int((s.get("multisliceParams") or s.get("multiNodeParams") or {})
                     .get("nodeCount", 1)) for s in specs)  # fmt: skip
    steps: list[Step] = [
        ApiCall(
            id="delete",
            summary=f"delete the suspended queued resource {name} (no force: its VMs are gone)",
            api=qr.QR_DELETE,
            method="DELETE",
            url=url,
            accept=("NOT_FOUND",),
        ),
        *qr.gone_steps(project, zone, name, keys="old host keys"),
        qr._key_step(opts),
        *login[0],
        ApiCall(
            id="create",
            summary=f"request queued resource {name} again, with the same body",
            after=("forget-host-keys", "ssh-key", *(s.id for s in login[0])),
            api=qr.QR_CREATE,
            method="POST",
            url=f"{qr.ROOT}/{version}/{qr.parent(project, zone)}/queuedResources"
            f"?queuedResourceId={name}",
            body=body,
            accept=("ALREADY_EXISTS",),
        ),
        qr._wait_step(project, zone, name, RECREATE_TIMEOUT, ("create",)),
    ]
    nodes: tuple[str, ...] | Ref = qr.node_names(name, slices)
    steps += qr._access_steps(project, zone, name, opts, nodes, login)
    return Plan(title=f"re-create queued resource {name} in {zone}", steps=tuple(steps))
