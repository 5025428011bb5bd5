"""(i) zones_offer: every zone a plan puts accelerators in offers the family, and flex-start
queued resources only where Cloud TPU offers flex-start.

The facts are the sourced table xcli ships (xcli/catalog/zones.json: one row per zone with its
page, the Cloud TPU regions-and-zones page; `flex_start`: the Cloud TPU flex-start page,
"You can only request Flex-start TPU v6e and v5e in the specified zones"). Read from the
request bodies alone: the node pools' machine family (node_facts.json tpu_machines) and zones
(the pool's `locations`, else the cluster's), a queued resource's acceleratorType and parent.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

TABLE: dict[str, Any] = json.loads(
    resources.files("xcli.catalog").joinpath("zones.json").read_text("utf-8")
)
MACHINE_FAMILY = {"ct4p": "v4", "ct5lp": "v5e", "ct5p": "v5p", "ct6e": "v6e", "tpu7x": "tpu7x"}
QR_CREATE = "tpu.projects.locations.queuedResources.create"


def _offered(family: str) -> set[str]:
    return {r["zone"] for r in TABLE["tpu"].get(family, [])}


def _qr_family(accelerator_type: str) -> str:
    name = accelerator_type.rsplit("-", 1)[0]
    return "v5e" if name == "v5litepod" else name


def zones_offer(plan: list[dict[str, Any]]) -> list[str]:
    lines = []
    for step in plan:
        api, body = step.get("api"), (step.get("request") or {}).get("body") or {}
        if api == "container.projects.locations.clusters.create":
            cluster = body["cluster"]
            pools = [(p, cluster.get("locations", [])) for p in cluster.get("nodePools", [])]
        elif api == "container.projects.locations.clusters.nodePools.create":
            pools = [(body["nodePool"], [])]
        elif api == QR_CREATE:
            lines += _qr_zone(body)
            continue
        else:
            continue
        for pool, default in pools:
            family = MACHINE_FAMILY.get(
                pool.get("config", {}).get("machineType", "-").split("-")[0]
            )
            for zone in pool.get("locations") or default:
                if family and zone not in _offered(family):
                    lines.append(f"nodePool {pool['name']} locations {zone}: no {family} there")
    return lines


def _qr_zone(body: dict[str, Any]) -> list[str]:
    lines = []
    for node in body["tpu"]["nodeSpec"]:
        family = _qr_family(node["node"]["acceleratorType"])
        zone = node["parent"].rsplit("/", 1)[-1]
        if zone not in _offered(family):
            lines.append(f"queuedResource nodeSpec parent {zone}: no {family} there")
        flex = {r["zone"] for r in TABLE["flex_start"].get(family, [])}
        if body.get("provisioningModel") == "FLEX_START" and zone not in flex:
            where = ", ".join(sorted(flex)) or "nowhere"
            lines.append(
                f"queuedResource provisioningModel FLEX_START: Cloud TPU offers flex-start for "
                f"{family} in {where}, not {zone}"
            )
    return lines
