"""A cluster as its plans leave it: pools and their nodes, Kueue objects and configuration,
the kinds it serves, and every object applied to it.

Built from plans in their `-o json` form (a list of steps). Several plans may be folded into
one cluster (`cluster create`, then `team create`, then `workload create`): `add` each in turn.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from tests.conftest import DATA
from tests.model.addresses import PoolAddresses, pool_addresses, range_prefix
from tests.model.nodes import NodePool, known_reservations, nap_limits, nap_pool, plan_pools

FACTS: dict[str, Any] = json.loads((Path(__file__).parent / "cluster_facts.json").read_text())


def kind_of(obj: dict[str, Any]) -> str:
    """`group/version/Kind`, `v1/Kind` for the core group."""
    return f"{obj.get('apiVersion', '')}/{obj.get('kind', '')}"


@cache
def _crd_kinds(folder: str) -> frozenset[str]:
    kinds = set()
    for path in sorted((DATA / folder).glob("*.yaml")):
        crd = yaml.safe_load(path.read_text(encoding="utf-8"))
        kinds |= _kinds_of_crd(crd)
    return frozenset(kinds)


def _kinds_of_crd(crd: dict[str, Any]) -> set[str]:
    spec = crd["spec"]
    served = [v["name"] for v in spec["versions"] if v.get("served", True)]
    return {f"{spec['group']}/{v}/{spec['names']['kind']}" for v in served}


@dataclass
class Applied:
    step: str
    obj: dict[str, Any]


@dataclass
class Cluster:
    pools: list[NodePool] = field(default_factory=list)
    kinds: set[str] = field(default_factory=lambda: set(FACTS["builtin_kinds"]["kinds"]))
    device_classes: set[str] = field(default_factory=set)
    # DeviceClass -> Kueue's logical resource name (Configuration resources.deviceClassMappings)
    dra_mappings: dict[str, str] = field(default_factory=dict)
    applied: list[Applied] = field(default_factory=list)
    installs: list[str] = field(default_factory=list)
    unknown_installs: list[str] = field(default_factory=list)
    pod_range: int | None = None  # the Pod range's prefix length, once a cluster body is seen
    addresses: list[PoolAddresses] = field(default_factory=list)
    body: dict[str, Any] | None = None  # the clusters.create body, once a cluster plan is seen
    pool_bodies: list[dict[str, Any]] = field(default_factory=list)  # every node-pool body
    # `${step.chips}` of a k8s_cohort_read -> the most the live read can give: the cluster's
    # chips (teams holding none), so a quota read live still bounds what Kueue admits
    reads: dict[str, float] = field(default_factory=dict)

    def add(self, plan: list[dict[str, Any]]) -> Cluster:
        self.pools += plan_pools(plan)
        for step in plan:
            if step.get("api") == "container.projects.locations.clusters.create":
                body = step["request"]["body"]["cluster"]
                self._beta_apis(body)
                self._addons(body)
                self.pod_range = range_prefix(body)
                self.addresses += [pool_addresses(p) for p in body.get("nodePools", [])]
                self.body = body
                self.pool_bodies += body.get("nodePools", [])
            if step.get("api") == "container.projects.locations.clusters.nodePools.create":
                self.addresses.append(pool_addresses(step["request"]["body"]["nodePool"]))
                self.pool_bodies.append(step["request"]["body"]["nodePool"])
            if step.get("kind") == "k8s_install":
                self._install(step)
            if step.get("kind") == "k8s_cohort_read":
                self.reads[f"${{{step['id']}.chips}}"] = float(step["chips"])
            manifest = step.get("manifest")
            if step.get("kind") == "k8s_apply" and isinstance(manifest, dict):
                self.applied.append(Applied(step["id"], manifest))
                if manifest.get("kind") == "CustomResourceDefinition":
                    self.kinds |= _kinds_of_crd(manifest)
                if manifest.get("kind") == "DeviceClass":
                    self.device_classes.add(manifest["metadata"]["name"])
        self._nap_pools()
        return self

    def _nap_pools(self) -> None:
        """On a node auto-provisioning cluster, the pools GKE makes for what asks: each
        ResourceFlavor and each pod template an applied object has (tests/model/nodes.py
        nap_pool); pools already there that fit are not made twice."""
        limits = nap_limits(self.body)
        if not limits:
            return
        from tests.model.checks import pod_templates
        from tests.model.scheduling import requests

        metadata: dict[str, str] = next(
            (a.obj.get("data", {}) for a in self.applied if a.step == "k8s-metadata"), {}
        )
        reservations = (metadata.get("project", ""), known_reservations(metadata))
        asks: list[tuple[dict[str, str], dict[str, str]]] = [
            (f["spec"].get("nodeLabels", {}), {}) for f in self.objects("ResourceFlavor")
        ]
        for applied in self.applied:
            for _, pod in pod_templates(applied.obj):
                asks.append((pod.get("nodeSelector", {}), requests(pod)))
        for selector, asked in asks:
            if any(all(p.labels.get(k) == v for k, v in selector.items()) for p in self.pools):
                continue
            made = nap_pool(selector, asked, limits, len(self.pools), reservations)
            if made is not None:
                self.pools.append(made)

    def _beta_apis(self, cluster: dict[str, Any]) -> None:
        """Kinds of the beta APIs the cluster body turns on (enableK8sBetaApis.enabledApis:
        group/version/resource)."""
        enabled = set(cluster.get("enableK8sBetaApis", {}).get("enabledApis", []))
        for kind in FACTS["beta_kinds"]["kinds"]:
            group_version, name = kind.rsplit("/", 1)
            plural = name.lower() + ("es" if name.endswith("s") else "s")
            if f"{group_version}/{plural}" in enabled:
                self.kinds.add(kind)

    def _addons(self, cluster: dict[str, Any]) -> None:
        """Kinds of the GKE add-ons the cluster body turns on (addonsConfig.<addon>.enabled)."""
        for addon, row in FACTS["addon_kinds"]["addons"].items():
            if cluster.get("addonsConfig", {}).get(addon, {}).get("enabled"):
                self.kinds |= _crd_kinds(row["kinds_from_crds"])

    def _install(self, step: dict[str, Any]) -> None:
        component = str(step.get("component", ""))
        self.installs.append(component)
        for row in FACTS["installs"]:
            if row.get("component") == component or (
                row.get("component_contains", "\0") in component
            ):
                break
        else:
            self.unknown_installs.append(f"{step['id']} ({component})")
            return
        self.kinds |= _crd_kinds(row["kinds_from_crds"]) if "kinds_from_crds" in row else set()
        self.kinds |= set(row.get("kinds", []))
        self.device_classes |= set(row.get("device_classes", []))
        patch = step.get("config_patch") or {}
        mappings = patch.get("merge", {}).get("resources", {}).get("deviceClassMappings", [])
        for mapping in mappings:
            for device_class in mapping.get("deviceClassNames", []):
                self.dra_mappings[device_class] = mapping["name"]

    def objects(self, kind: str) -> list[dict[str, Any]]:
        return [a.obj for a in self.applied if a.obj.get("kind") == kind]

    def named(self, kind: str, name: str, namespace: str | None = None) -> dict[str, Any] | None:
        for obj in self.objects(kind):
            meta = obj.get("metadata", {})
            if meta.get("name") == name and (
                namespace is None or meta.get("namespace") == namespace
            ):
                return obj
        return None


def cluster_of(*plans: list[dict[str, Any]]) -> Cluster:
    cluster = Cluster()
    for plan in plans:
        cluster.add(plan)
    return cluster
