"""The GKE provider: a GKE cluster with one TPU node pool per slice, or one GPU pool.

Planning is pure (xcli.providers.gke.planner). A live run first calls `observe`, which reads
what exists through the gateways, and plans against that; the dry-run plans against nothing
(see the docstring of xcli.providers.gke.planner). Gateways are built on first use, so neither
planning nor a dry-run needs credentials.

Seams the lead wires in (this module does not build them):
- `setup`: the in-cluster setup builder (xcli.plan.gke.incluster.setup_steps), spliced after the
  cluster step by plan_create;
- `extra_handlers`: handlers for step kinds other than api_call and wait (k8s_apply);
- `node_counts` / `kueue_status`: Kubernetes reads for describe (ready nodes per pool, Kueue
  quota and usage). Without them describe says the value needs the Kubernetes API;
- `connect`: how `kube_api` (the provider's ClusterAccess) opens a cluster's Kubernetes API
  (default: clusters.get through `container`, then Google credentials).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from xcli.errors import NotFoundError
from xcli.gateways.google.compute import ComputeGateway
from xcli.gateways.google.container import ContainerGateway
from xcli.gateways.google.project_iam import ProjectIamGateway
from xcli.gateways.google.vertex import VertexGateway
from xcli.gateways.kube.api import KubeApi
from xcli.plan.cluster import ClusterRef, ClusterSummary
from xcli.plan.contract import Handler, StepContext
from xcli.plan.ml_diagnostics import ProjectIamGrant
from xcli.plan.model import Plan
from xcli.plan.steps import ApiCall
from xcli.plan.vertex import EnsureTensorboard
from xcli.providers import reservation
from xcli.providers.gke import nat, pathways
from xcli.providers.gke.access import KubeConnector
from xcli.providers.gke.endpoint import network_facts
from xcli.providers.gke.gpu_network_live import find_owned, may_own_networks
from xcli.providers.gke.planner import GkeObserved, ObservedPool, SetupBuilder, plan_create
from xcli.providers.gke.planner_delete import plan_delete
from xcli.providers.gke.terraform import TERRAFORM
from xcli.spec import ClusterSpec
from xcli.terraform.support import TerraformSupport

NEEDS_K8S = "unknown here (needs the Kubernetes API)"


def pool_capacity(pool: Any) -> str:
    config = pool.config
    if config.flex_start:
        return "flex-start"
    if config.spot:
        return "spot"
    if config.reservation_affinity.consume_reservation_type.name == "SPECIFIC_RESERVATION":
        return "reservation"
    return "on-demand"


def pool_nodes(pool: Any) -> int:
    if pool.config.flex_start:
        return int(pool.autoscaling.total_max_node_count)
    return int(pool.initial_node_count)


def observed_pool(pool: Any) -> ObservedPool:
    return ObservedPool(
        name=pool.name,
        status=pool.status.name,
        accelerator=pool.config.resource_labels.get("xcli-accelerator"),
        machine_type=pool.config.machine_type,
        nodes=pool_nodes(pool),
        capacity=pool_capacity(pool),
        policy=pool.placement_policy.policy_name,
    )


class GkeProvider:
    name = "gke"
    terraform: TerraformSupport | None = TERRAFORM

    def __init__(
        self,
        container: ContainerGateway | None = None,
        compute: ComputeGateway | None = None,
        *,
        setup: SetupBuilder | None = None,
        extra_handlers: Mapping[str, Handler] | None = None,
        node_counts: Callable[[ClusterRef], Mapping[str, int]] | None = None,
        kueue_status: Callable[[ClusterRef], Mapping[str, Any]] | None = None,
        connect: KubeConnector | None = None,
        vertex: VertexGateway | None = None,
        project_iam: ProjectIamGateway | None = None,
    ) -> None:
        self.container = container or ContainerGateway()
        self.compute = compute or ComputeGateway()
        self.connect = connect or KubeConnector(self.container)
        self._vertex = vertex
        self._project_iam = project_iam
        self._apis: dict[ClusterRef, KubeApi] = {}
        self.setup = setup
        self.extra_handlers = dict(extra_handlers or {})
        self.node_counts = node_counts
        self.kueue_status = kueue_status

    # --- planning (pure) ---------------------------------------------------------------------

    def plan_create(self, spec: ClusterSpec, observed: object | None = None) -> Plan:
        from xcli.plan.gke.console import cluster_links

        seen = observed if isinstance(observed, GkeObserved) else None
        plan = plan_create(spec, seen, self.setup)
        return replace(plan, links=cluster_links(spec.project, spec.region, spec.name))

    def plan_delete(self, ref: ClusterRef, observed: object | None = None) -> Plan:
        seen = observed if isinstance(observed, GkeObserved) else None
        return plan_delete(ref.project, ref.zone, ref.name, seen)

    # --- live --------------------------------------------------------------------------------

    def kube_api(self, ref: ClusterRef) -> KubeApi:
        """ClusterAccess: the cluster's Kubernetes API (clusters.get once per cluster, then the
        same connection for every read and step of this command)."""
        if ref not in self._apis:
            self._apis[ref] = self.connect.for_ref(ref.project, ref.region, ref.name)
        return self._apis[ref]

    def observe(self, ref: ClusterRef, purpose: str = "create") -> GkeObserved:
        """What exists now: the cluster and its pools; the workload policies xcli made for it
        (from the pools; for a delete of a cluster already gone, by listing the region's
        policies, so leftovers of an interrupted delete are found too). A create needs no
        listing: it creates the policy and adopts one that exists with the same settings."""
        prefix = f"{ref.name}-wp-"
        cluster = self.container.get_cluster(ref.project, ref.region, ref.name)
        # a delete also removes the GPU networks xcli made for the cluster (gpu_network_live)
        networks = (
            find_owned(self.compute, ref.project, ref.region, ref.name)
            if purpose == "delete" and may_own_networks(cluster)
            else None
        )
        # a delete also finds the Cloud Router xcli made for the cluster's NAT (nat.py)
        routers = self._routers(ref) if purpose == "delete" else ()
        if cluster is None:
            if purpose != "delete":
                return GkeObserved()
            policies = self.compute.policies(ref.project, ref.region, prefix)
            gone = GkeObserved(policies=policies, routers=routers)
            return gone if networks is None else replace(gone, networks=networks)
        pools = {p.name: observed_pool(p) for p in cluster.node_pools}
        used = {p.placement_policy.policy_name for p in cluster.node_pools}
        seen = GkeObserved(
            cluster_status=cluster.status.name,
            locations=tuple(cluster.locations),
            pools=pools,
            policies=tuple(sorted(n for n in used if n.startswith(prefix))),
            routers=routers,
            private=bool(network_facts(cluster)["private_nodes"]),
            slice_controller=bool(cluster.addons_config.slice_controller_config.enabled),
        )
        return seen if networks is None else replace(seen, networks=networks)

    def _routers(self, ref: ClusterRef) -> tuple[str, ...]:
        url = nat.routers_url(ref.project, ref.region)
        found = self.compute.list_items(url, "list Cloud Routers", ref.project, ref.region)
        return nat.xcli_routers(found, ref.name)

    def handlers(self, ref: ClusterRef) -> Mapping[str, Handler]:
        def api_call(step: ApiCall, ctx: StepContext) -> Mapping[str, Any]:
            if step.api.startswith("compute."):
                return self.compute.run(step, ctx)
            return self.container.run(step, ctx)

        def ensure_nat(step: nat.EnsureNat, ctx: StepContext) -> Mapping[str, Any]:
            return nat.ensure_nat(self.compute, step, ctx)

        def check(step: reservation.ReservationCheck, ctx: StepContext) -> Mapping[str, Any]:
            return reservation.run_check(self.compute, step, ctx)

        def pathways_check(step: pathways.MachineCheck, ctx: StepContext) -> Mapping[str, Any]:
            return pathways.run_check(self.compute, step, ctx)

        def tensorboard(step: EnsureTensorboard, ctx: StepContext) -> Mapping[str, Any]:
            self._vertex = self._vertex or VertexGateway()  # built on first use
            return self._vertex.ensure(step, ctx)

        def project_iam(step: ProjectIamGrant, ctx: StepContext) -> Mapping[str, Any]:
            self._project_iam = self._project_iam or ProjectIamGateway()
            return self._project_iam.grant(step, ctx)

        return {
            "api_call": api_call,
            pathways.MachineCheck.kind: pathways_check,
            "wait": self.container.wait,
            nat.EnsureNat.kind: ensure_nat,
            reservation.ReservationCheck.kind: check,
            EnsureTensorboard.kind: tensorboard,
            ProjectIamGrant.kind: project_iam,
            **self.extra_handlers,
        }

    def list_clusters(self, project: str, zone: str | None) -> list[ClusterSummary]:
        location = zone.rsplit("-", 1)[0] if zone else "-"
        rows = []
        for cluster in self.container.list_clusters(project, location):
            mine = [p for p in cluster.node_pools if "xcli-accelerator" in p.config.resource_labels]
            accel = mine[0].config.resource_labels["xcli-accelerator"] if mine else "-"
            gpu = bool(mine and mine[0].config.accelerators)
            rows.append(
                ClusterSummary(
                    name=cluster.name,
                    provider="gke",
                    location=cluster.location,
                    accelerator=accel,
                    slices=pool_nodes(mine[0]) if gpu else len(mine),
                    capacity=pool_capacity(mine[0]) if mine else "-",
                    status=cluster.status.name,
                    extra={"created_by": cluster.resource_labels.get("created-by", "")},
                )
            )
        return sorted(rows, key=lambda r: (r.location, r.name))

    def describe(self, ref: ClusterRef) -> Mapping[str, Any]:
        cluster = self.container.get_cluster(ref.project, ref.region, ref.name)
        if cluster is None:
            raise NotFoundError(
                f"cluster {ref.name} not found in {ref.project}/{ref.region}",
                hint="list clusters with: xcli cluster list",
            )
        ready = self.node_counts(ref) if self.node_counts else None
        pools = []
        for pool in cluster.node_pools:
            labels = pool.config.resource_labels
            pools.append(
                {
                    "name": pool.name,
                    "slice": int(labels["xcli-slice"]) if "xcli-slice" in labels else None,
                    "accelerator": labels.get("xcli-accelerator", pool.config.machine_type),
                    "machine_type": pool.config.machine_type,
                    "capacity": pool_capacity(pool),
                    "status": pool.status.name,
                    "expected_nodes": pool_nodes(pool),
                    "ready_nodes": ready.get(pool.name, 0) if ready is not None else NEEDS_K8S,
                }
            )
        return {
            "name": cluster.name,
            "location": cluster.location,
            "status": cluster.status.name,
            "version": cluster.current_master_version,
            "created_by": cluster.resource_labels.get("created-by", ""),
            **network_facts(cluster),
            **_autoprovisioning(cluster),
            "node_pools": pools,
            # Kueue quota and usage, and the xcli version (metadata ConfigMap), live in the
            # cluster: the lead wires `kueue_status` to the Kubernetes gateway.
            "kueue": dict(self.kueue_status(ref)) if self.kueue_status else NEEDS_K8S,
        }


def _autoprovisioning(cluster: Any) -> dict[str, Any]:
    """Node auto-provisioning's limits as GKE holds them (absent when it is off): what
    `cluster create --enable-autoprovisioning` set, or changed since."""
    scaling = cluster.autoscaling
    if not scaling.enable_node_autoprovisioning:
        return {}
    limits = {r.resource_type: [r.minimum, r.maximum] for r in scaling.resource_limits}
    return {
        "autoprovisioning": {
            "limits": limits,
            "locations": list(scaling.autoprovisioning_locations),
        }
    }
