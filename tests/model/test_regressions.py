"""A deliberate regression of each kind fails the model with one line naming object and field;
the same plan without the regression passes, so each test shows the check can fail and pass."""

from __future__ import annotations

import copy
from typing import Any

from tests.model.checks import check_all, ports_served
from tests.model.cluster import Cluster, cluster_of
from tests.model.goldens import ON_DEMAND, Plan, applied_objects, cluster_plan, golden_plan
from xcli.spec import Capacity

SPOT = Capacity("spot")
CHANNEL = "compute-domain-default-channel.nvidia.com"
DRA_RESOURCE = "nvidia.com/compute-domain-channel"


def _run(cluster: Plan, workload: Plan | None = None) -> list[str]:
    model: Cluster = cluster_of(cluster)
    objects = applied_objects(cluster)
    if workload is not None:
        model.add(workload)
        objects = applied_objects(workload)
    return check_all(model, objects)


def _step(plan: Plan, step_id: str) -> dict[str, Any]:
    (step,) = [s for s in plan if s["id"] == step_id]
    return step


def _pod(plan: Plan) -> dict[str, Any]:
    jobset = _step(plan, "jobset")["manifest"]
    pod: dict[str, Any] = jobset["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]
    return pod["spec"]


def test_a_selector_no_pool_satisfies() -> None:
    cluster = cluster_plan(("v6e-256", ON_DEMAND, 2))
    workload = copy.deepcopy(golden_plan("workload/v6e-256-x2.json"))
    assert _run(cluster, workload) == []
    _pod(workload)["nodeSelector"]["cloud.google.com/gke-nodepool"] = "no-such-pool"
    assert _run(cluster, workload) == [
        "JobSet train-1 replicatedJobs[slice] pod spec.nodeSelector "
        "cloud.google.com/gke-nodepool=no-such-pool: no node of any pool satisfies it "
        "(closest: demo-np-0)"
    ]


def test_a_taint_no_toleration_covers() -> None:
    cluster = cluster_plan(("v6e-256", ON_DEMAND, 2))
    workload = copy.deepcopy(golden_plan("workload/v6e-256-x2.json"))
    _pod(workload)["tolerations"] = []
    flavor = _step(cluster := copy.deepcopy(cluster), "k8s-flavor")["manifest"]
    flavor["spec"]["tolerations"] = []
    (line,) = _run(cluster, workload)
    assert line.startswith("JobSet train-1 replicatedJobs[slice] pod spec.tolerations ")
    assert "taint google.com/tpu=present:NoSchedule" in line


def test_a_flavor_without_its_label_on_the_nodes() -> None:
    cluster = copy.deepcopy(golden_plan("gke/v6e-256-x2-spot.json"))
    assert _run(cluster) == []
    flavor = _step(cluster, "k8s-flavor")["manifest"]
    flavor["spec"]["nodeLabels"]["cloud.google.com/gke-tpu-topology"] = "8x32"
    assert _run(cluster) == [
        "ResourceFlavor v6e-256 spec.nodeLabels cloud.google.com/gke-tpu-topology=8x32: "
        "on no node of any pool (closest: demo-np-0)"
    ]


def test_the_model_sees_labels_a_pool_body_sets() -> None:
    """The flavor of xcli before the A1 fix selected cloud.google.com/gke-queued, which GKE only
    puts on queued nodes as a taint: no node carries it, unless the pool body labels its nodes
    (as Cluster Toolkit does for queued pools), which the model reads."""
    cluster = copy.deepcopy(golden_plan("gke/v5litepod-16-flex-start.json"))
    assert _run(cluster) == []
    flavor = next(
        s["manifest"]
        for s in cluster
        if s.get("kind") == "k8s_apply" and s["manifest"].get("kind") == "ResourceFlavor"
    )
    flavor["spec"]["nodeLabels"]["cloud.google.com/gke-queued"] = "true"
    (line,) = _run(cluster)
    assert "cloud.google.com/gke-queued=true" in line
    pool = _step(cluster, "pool-0")["request"]["body"]["nodePool"]
    pool["config"].setdefault("labels", {})["cloud.google.com/gke-queued"] = "true"
    assert _run(cluster) == []


def _a4x_cluster_with_dra(mapped: bool) -> Plan:
    """The A4X cluster plan: the NVIDIA DRA driver installed, the channel's DeviceClass mapped
    in Kueue's configuration (unless `mapped` is False) and covered by the ClusterQueue."""
    cluster = copy.deepcopy(cluster_plan(("gb200-4", ON_DEMAND, 18)))
    if not mapped:
        kueue = _step(cluster, "k8s-install-kueue")
        del kueue["config_patch"]["merge"]["resources"]["deviceClassMappings"]
    return cluster


def test_c_a_claim_without_a_mapping() -> None:
    workload = golden_plan("workload/gb200-4-x18.json")
    assert _run(_a4x_cluster_with_dra(mapped=True), workload) == []
    assert _run(_a4x_cluster_with_dra(mapped=False), workload) == [
        "JobSet train-1 replicatedJobs[workers] pod spec.resourceClaims[compute-domain-channel]: "
        f"DeviceClass {CHANNEL} is not in Kueue's resources.deviceClassMappings "
        "(Kueue refuses the workload)"
    ]


def test_c_a_resource_no_queue_covers() -> None:
    cluster = copy.deepcopy(golden_plan("gke/h100-80gb-8-x2-on-demand.json"))
    workload = golden_plan("workload/h100-80gb-8-x2.json")
    assert _run(cluster, workload) == []
    group = _step(cluster, "k8s-cluster-queue")["manifest"]["spec"]["resourceGroups"][0]
    group["coveredResources"].remove("nvidia.com/gpu")
    group["flavors"][0]["resources"] = group["flavors"][0]["resources"][1:]
    assert _run(cluster, workload) == [
        "JobSet train-1 replicatedJobs[workers] pod resources nvidia.com/gpu: "
        "not covered by ClusterQueue xcli-cluster-queue"
    ]


def test_d_an_applied_kind_nothing_installs() -> None:
    cluster = [
        s for s in cluster_plan(("v6e-256", ON_DEMAND, 2)) if s["id"] != "k8s-install-jobset"
    ]
    assert _run(cluster, golden_plan("workload/v6e-256-x2.json")) == [
        "JobSet train-1 apiVersion jobset.x-k8s.io/v1alpha2: kind installed by nothing in the "
        "cluster plan nor built into GKE"
    ]


def test_d_an_install_with_no_sourced_kinds() -> None:
    cluster = [*cluster_plan(("v6e-256", SPOT, 2))]
    cluster.append({"id": "k8s-install-x", "kind": "k8s_install", "component": "mystery"})
    assert _run(cluster) == [
        "k8s_install k8s-install-x (mystery): no sourced list of the kinds it installs"
    ]


def test_e_a_test_on_the_wrong_port() -> None:
    network = copy.deepcopy(golden_plan("network/gb200-4.txt"))
    objects = applied_objects(network)
    assert ports_served(objects) == []
    main = _pod(network)["containers"][0]
    main["command"] = [part.replace("-p 222", "-p 22") for part in main["command"]]
    assert ports_served(objects) == [
        "JobSet xcli-network-test replicatedJobs[workers] pod containers[main].command ssh -p 22: "
        "image us-docker.pkg.dev/gce-ai-infra/gpudirect-gib/nccl-plugin-gib-diagnostic-arm64 "
        "serves sshd on 222"
    ]


def test_e_the_a3_mega_test_on_the_wrong_port() -> None:
    """The A3 Mega test reaches TCPXO's sshd on 222 (audit A4); back on 22 the check fails."""
    network = copy.deepcopy(golden_plan("network/h100-mega-80gb-8.txt"))
    assert ports_served(applied_objects(network)) == []
    main = _pod(network)["containers"][0]
    main["command"] = [
        part.replace("-p 222 ", "-p 22 ").replace('-p 222"', '-p 22"') for part in main["command"]
    ]
    assert len(ports_served(applied_objects(network))) == 1


def test_b_a_queue_naming_an_admission_check_nothing_applies() -> None:
    cluster = copy.deepcopy(cluster_plan(("h100-mega-80gb-8", Capacity("flex-start"), 2)))
    cluster = [s for s in cluster if s["id"] != "k8s-admission-check"]
    lines = [line for line in _run(cluster) if "AdmissionCheck" in line]
    assert lines == [
        "ClusterQueue xcli-cluster-queue spec.admissionChecksStrategy: no AdmissionCheck "
        "xcli-dws-prov in the plans"
    ]


def test_a_team_workload_is_checked_through_its_team_queue() -> None:
    """The team's ClusterQueue names its flavors by a value `team create` reads live; the model
    then tries every flavor of the cluster, so the pod is still checked."""
    cluster = [*cluster_plan(("v6e-256", SPOT, 2)), *golden_plan("team/create-v6e-64.json")]
    workload = copy.deepcopy(golden_plan("team/workload-namespace-t.json"))
    assert _run(cluster, workload) == []
    _pod(workload)["nodeSelector"]["cloud.google.com/gke-tpu-topology"] = "4x4"
    (line,) = _run(cluster, workload)
    assert line.startswith(
        "JobSet train-1 replicatedJobs[slice] pod spec.nodeSelector "
        "cloud.google.com/gke-tpu-topology=4x4: no node of any pool satisfies it"
    )


def test_d_beta_dra_kinds_are_served_only_when_the_cluster_enables_them() -> None:
    cluster = copy.deepcopy(cluster_plan(("gb200-4", ON_DEMAND, 18)))
    claim = {
        "apiVersion": "resource.k8s.io/v1beta1",
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": "c"},
        "spec": {"spec": {"devices": {"requests": [{"name": "r", "deviceClassName": "d"}]}}},
    }
    workload = [{"id": "claim", "kind": "k8s_apply", "manifest": claim}]
    assert _run(cluster, workload) == []
    body = _step(cluster, "cluster")["request"]["body"]["cluster"]
    del body["enableK8sBetaApis"]
    assert _run(cluster, workload) == [
        "ResourceClaimTemplate c apiVersion resource.k8s.io/v1beta1: kind installed by nothing "
        "in the cluster plan nor built into GKE"
    ]


def test_nodes_without_pod_addresses() -> None:
    """The 2,304-VM golden fits its /14 only because its TPU pools cap their pods per node."""
    cluster = copy.deepcopy(golden_plan("gke/tpu7x-512-x36-spot.json"))
    assert _run(cluster) == []
    for step in cluster:
        if step.get("api") == "container.projects.locations.clusters.nodePools.create":
            del step["request"]["body"]["nodePool"]["maxPodsConstraint"]
    assert _run(cluster) == [
        "cluster ipAllocationPolicy.clusterIpv4CidrBlock /14 holds 262144 Pod addresses; "
        "the plan's 2353 nodes need 602368 (largest: demo-np-0, 65 nodes x 256 for 110 "
        "pods per node)"
    ]


def _template(plan: Plan, job: str) -> dict[str, Any]:
    jobset = _step(plan, "jobset")["manifest"]
    (rjob,) = [r for r in jobset["spec"]["replicatedJobs"] if r["name"] == job]
    template: dict[str, Any] = rjob["template"]["spec"]["template"]
    return template


def test_f_pathways_workers_without_a_topology_request() -> None:
    """Issue 32 item 1: on a ClusterQueue mixing the TAS TPU flavor and the head's pathways-cpu,
    Kueue v0.19.2 gives workers that ask for no topology no flavor; the head asks for none and
    takes pathways-cpu (a TAS request there would be refused the same way)."""
    cluster = golden_plan("gke/v5p-128-x2-pathways.json")
    workload = copy.deepcopy(golden_plan("workload/pathways-batch.json"))
    assert _run(cluster, workload) == []
    del _template(workload, "worker")["metadata"]["annotations"]
    assert _run(cluster, workload) == [
        "JobSet train-1 replicatedJobs[worker]: no flavor of ClusterQueue xcli-cluster-queue "
        'admits its 32 pods (v5p-128: Flavor "v5p-128" supports only TopologyAwareScheduling; '
        "pathways-cpu: nodeLabels do not give the pod's nodeSelector "
        "cloud.google.com/gke-tpu-accelerator=tpu-v5p-slice)"
    ]
    workload = copy.deepcopy(golden_plan("workload/pathways-batch.json"))
    head = _template(workload, "pathways-head")
    head["metadata"]["annotations"] = dict(_template(workload, "worker")["metadata"]["annotations"])
    (line,) = _run(cluster, workload)
    assert line.startswith("JobSet train-1 replicatedJobs[pathways-head]: no flavor")
    assert 'Flavor "pathways-cpu" does not support TopologyAwareScheduling' in line


def test_f_a_flavor_tried_in_order_and_quota_per_resource() -> None:
    """Kueue takes the first flavor of the group that fits; a pod set over every flavor's quota
    of one resource fits none."""
    cluster = copy.deepcopy(golden_plan("gke/h100-80gb-8-x2-on-demand.json"))
    workload = golden_plan("workload/h100-80gb-8-x2.json")
    assert _run(cluster, workload) == []
    group = _step(cluster, "k8s-cluster-queue")["manifest"]["spec"]["resourceGroups"][0]
    for flavor in group["flavors"]:
        for resource in flavor["resources"]:
            if resource["name"] == "nvidia.com/gpu":
                resource["nominalQuota"] = 8
    (line,) = _run(cluster, workload)
    assert line.startswith("JobSet train-1 replicatedJobs[workers]: no flavor of ClusterQueue")
    assert "nvidia.com/gpu 16 over quota 8" in line


def test_g_compact_placement_on_a_queued_gpu_pool() -> None:
    """Issue 32 item 2: the A4X pool's COMPACT workload policy on a queued-provisioning pool,
    which GKE (as Cluster Toolkit encodes it) refuses for GPUs."""
    cluster = copy.deepcopy(golden_plan("gke/gb200-4-x18-reservation.json"))
    assert [line for line in _run(cluster) if "placementPolicy" in line] == []
    pool = _step(cluster, "pool-0")["request"]["body"]["nodePool"]
    pool["queuedProvisioning"] = {"enabled": True}
    assert [line for line in _run(cluster) if "placementPolicy" in line] == [
        "nodePool demo-np-0 placementPolicy.type COMPACT: not allowed with queuedProvisioning "
        "on a4x-highgpu-4g (not a TPU)"
    ]
    del pool["queuedProvisioning"]
    pool["config"]["flexStart"] = True
    assert [line for line in _run(cluster) if "placementPolicy" in line] == [
        "nodePool demo-np-0 placementPolicy.type COMPACT: flex-start takes compact placement "
        "only on A3 Ultra, A4 and H4D, not a4x-highgpu-4g"
    ]


def test_h_more_nodes_than_gke_or_the_subnet_takes() -> None:
    """Issue 32 item 5: the 2,307-node tpu7x golden fits the default /20; grown past 4,092
    nodes it does not, and past 15,000 GKE never creates it."""
    cluster = copy.deepcopy(golden_plan("gke/tpu7x-512-x36-spot.json"))
    assert _run(cluster) == []
    pool = _step(cluster, "pool-0")["request"]["body"]["nodePool"]
    pool["initialNodeCount"] = 2000
    assert _run(cluster) == [
        "cluster subnetwork (the network's auto-mode /20) holds 4092 node addresses; the plan's "
        "nodes need 4289 (surge included)"
    ]
    _step(cluster, "cluster")["request"]["body"]["cluster"]["subnetwork"] = "big"
    assert _run(cluster) == []
    pool["initialNodeCount"] = 13000
    assert "cluster: 15252 nodes, over GKE's limit of 15,000 per cluster" in _run(cluster)


def test_i_a_zone_without_the_family_or_its_flex_start() -> None:
    """Issue 32 items 3 and 6: a TPU pool in a zone the table does not list for its family, and
    a flex-start queued resource where Cloud TPU's flex-start page does not offer it."""
    from tests.model.zones import zones_offer

    cluster = copy.deepcopy(golden_plan("gke/tpu7x-128-x2-spot.json"))
    assert zones_offer(cluster) == []
    _step(cluster, "pool-0")["request"]["body"]["nodePool"]["locations"] = ["europe-north9-z"]
    assert zones_offer(cluster) == ["nodePool demo-np-0 locations europe-north9-z: no tpu7x there"]
    queued = copy.deepcopy(golden_plan("queued_resource/v6e-256-x4-flex-start-6h.json"))
    assert zones_offer(queued) == []
    node = _step(queued, "create")["request"]["body"]["tpu"]["nodeSpec"][0]
    node["parent"] = "projects/my-proj/locations/us-east5-b"
    assert zones_offer(queued) == [
        "queuedResource provisioningModel FLEX_START: Cloud TPU offers flex-start for v6e in "
        "asia-northeast1-b, us-east5-a, not us-east5-b"
    ]


def test_j_a_pushed_image_the_nodes_may_not_pull() -> None:
    """Issue 32 item 4: without the ar_reader step the nodes' default service account gets no
    pull permission on the repository the plan pushes to."""
    from tests.model.goldens import made_plan
    from tests.model.images import images_pulled

    name = "made/workload-with-built-image-on-v6e-256-x2-spot"
    cluster = cluster_of(golden_plan("gke/v6e-256-x2-spot.json"))
    plan = made_plan(name)
    assert images_pulled(cluster.pool_bodies, plan) == []
    without = [s for s in plan if s["kind"] != "ar_reader"]
    assert images_pulled(cluster.pool_bodies, without) == [
        "image_push build to projects/my-project/locations/us-east5/repositories/xcli: the "
        "nodes' default Compute Engine service account gets no roles/artifactregistry.reader "
        "on it (pods end in ImagePullBackOff where that account has no Editor role)"
    ]
