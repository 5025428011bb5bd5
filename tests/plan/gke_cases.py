"""The golden GKE scenarios: CLI flags, and the spec those flags make."""

from __future__ import annotations

from xcli.catalog import lookup
from xcli.providers.gke.options import GkeOptions
from xcli.spec import Capacity, ClusterSpec

PROJECT, ZONE = "my-project", "us-east5-b"
# tpu7x is offered in us-central1-c, not in us-east5-b (xcli/catalog/zones.json names the page)
TPU7X_ZONE = "us-central1-c"

# name -> (extra CLI flags, spec)
CASES: dict[str, tuple[list[str], ClusterSpec]] = {
    "v6e-256-x2-spot": (
        ["--tpu-type", "v6e-256", "--num-slices", "2", "--spot"],
        ClusterSpec("demo", PROJECT, ZONE, "gke", lookup("v6e-256"), Capacity("spot"), 2),
    ),
    # issue 25: the heads' CPU pool and its Kueue flavor beside two v5p-128 slices
    "v5p-128-x2-pathways": (
        ["--tpu-type", "v5p-128", "--num-slices", "2", "--spot", "--pathways"],
        ClusterSpec(
            "demo", PROJECT, ZONE, "gke", lookup("v5p-128"), Capacity("spot"), 2,
            options=GkeOptions(pathways=True),
        ),
    ),
    "v5p-128-reservation": (
        ["--tpu-type", "v5p-128", "--reservation", "my-reservation"],
        ClusterSpec(
            "demo", PROJECT, ZONE, "gke", lookup("v5p-128"),
            Capacity("reservation", reservation="my-reservation"),
        ),
    ),
    "tpu7x-8-single-host": (
        ["--tpu-type", "tpu7x-8", "--on-demand"],
        ClusterSpec("demo", PROJECT, TPU7X_ZONE, "gke", lookup("tpu7x-8"), Capacity("on-demand")),
    ),
    "tpu7x-128-x2-spot": (
        ["--tpu-type", "tpu7x-128", "--num-slices", "2", "--spot"],
        ClusterSpec(
            "demo", PROJECT, TPU7X_ZONE, "gke", lookup("tpu7x-128"), Capacity("spot"), 2
        ),
    ),
    "v5litepod-16-flex-start": (
        ["--tpu-type", "v5litepod-16", "--flex-start", "--max-run-duration", "6h"],
        ClusterSpec(
            "demo", PROJECT, ZONE, "gke", lookup("v5litepod-16"),
            Capacity("flex-start", max_run_duration=6 * 3600),
        ),
    ),
    "h100-80gb-8-x2-on-demand": (
        ["--device-type", "h100-80gb-8", "--num-nodes", "2", "--on-demand"],
        ClusterSpec(
            "demo", PROJECT, ZONE, "gke", lookup("h100-80gb-8"), Capacity("on-demand"),
            num_nodes=2,
        ),
    ),
    "h100-mega-80gb-8-x4-spot": (
        ["--device-type", "h100-mega-80gb-8", "--num-nodes", "4", "--spot"],
        ClusterSpec(
            "demo", PROJECT, ZONE, "gke", lookup("h100-mega-80gb-8"), Capacity("spot"),
            num_nodes=4,
        ),
    ),
    "h100-mega-80gb-8-x4-flex-start": (
        ["--device-type", "h100-mega-80gb-8", "--num-nodes", "4", "--flex-start",
         "--max-run-duration", "6h"],
        ClusterSpec(
            "demo", PROJECT, ZONE, "gke", lookup("h100-mega-80gb-8"),
            Capacity("flex-start", max_run_duration=6 * 3600), num_nodes=4,
        ),
    ),
    "h200-141gb-8-x2-on-demand": (
        ["--device-type", "h200-141gb-8", "--num-nodes", "2", "--on-demand"],
        ClusterSpec(
            "demo", PROJECT, ZONE, "gke", lookup("h200-141gb-8"), Capacity("on-demand"),
            num_nodes=2,
        ),
    ),
    "b200-8-x2-on-demand": (
        ["--device-type", "b200-8", "--num-nodes", "2", "--on-demand"],
        ClusterSpec(
            "demo", PROJECT, ZONE, "gke", lookup("b200-8"), Capacity("on-demand"), num_nodes=2,
        ),
    ),
    "gb200-4-x18-reservation": (
        ["--device-type", "gb200-4", "--num-nodes", "18", "--reservation", "gb200-domain"],
        ClusterSpec(
            "demo", PROJECT, ZONE, "gke", lookup("gb200-4"),
            Capacity("reservation", reservation="gb200-domain"), num_nodes=18,
        ),
    ),
    "private-authorized-nat": (
        ["--tpu-type", "v6e-16", "--spot", "--private", "--authorized-networks",
         "10.1.0.0/16,192.168.0.0/24", "--network", "ml-net", "--subnetwork", "ml-subnet"],
        ClusterSpec(
            "demo", PROJECT, ZONE, "gke", lookup("v6e-16"), Capacity("spot"),
            options=GkeOptions(private=True, authorized_networks=("10.1.0.0/16", "192.168.0.0/24"),
                               network="ml-net", subnetwork="ml-subnet"),
        ),
    ),
    "private-default-closed": (
        ["--tpu-type", "v6e-16", "--spot", "--private"],
        ClusterSpec(
            "demo", PROJECT, ZONE, "gke", lookup("v6e-16"), Capacity("spot"),
            options=GkeOptions(private=True),
        ),
    ),
    "v5p-128-x2-two-reservations": (
        ["--tpu-type", "v5p-128", "--num-slices", "2", "--reservation", "res-a,res-b"],
        ClusterSpec(
            "demo", PROJECT, ZONE, "gke", lookup("v5p-128"),
            Capacity("reservation", reservation="res-a,res-b"), 2,
        ),
    ),
    # issue 38: TPU7x dynamic slicing, XPK's recipe (recipes/Cluster_create_super-slicing.md)
    # with the corpus's --num-cubes 4: four 4x4x4 sub-blocks of an All Capacity reservation
    "tpu7x-128-x4-super-slicing": (
        ["--tpu-type", "tpu7x-4x4x4", "--reservation", "golden-reservation/reservationBlocks/block",
         "--super-slicing", "--num-cubes", "4"],
        ClusterSpec(
            "demo", PROJECT, TPU7X_ZONE, "gke", lookup("tpu7x-128"),
            Capacity("reservation", reservation="golden-reservation/reservationBlocks/block"),
            options=GkeOptions(super_slicing=True, num_cubes=4),
        ),
    ),
    # issue 36: XPK's `cluster create-ray` (docs/usage/clusters.md l.90): GKE's Ray Operator
    # add-on and a RayCluster of four single-host slices (plan/gke/ray.py)
    "v5litepod-8-x4-ray": (
        ["--tpu-type", "v5litepod-8", "--num-slices", "4", "--on-demand",
         "--ray-version", "2.39.0"],
        ClusterSpec(
            "demo", PROJECT, ZONE, "gke", lookup("v5litepod-8"), Capacity("on-demand"), 4,
            options=GkeOptions(ray_version="2.39.0"),
        ),
    ),
    # the three largest shapes (issue 28): 9,216 chips on 2,304 VMs, v5p's largest schedulable
    # job (96 cubes = 1,536 VMs, the catalogue's v5p-12288), and 32 full v6e pods
    "tpu7x-512-x36-spot": (
        ["--tpu-type", "tpu7x-512", "--num-slices", "36", "--spot"],
        ClusterSpec(
            "demo", PROJECT, TPU7X_ZONE, "gke", lookup("tpu7x-512"), Capacity("spot"), 36
        ),
    ),
    "v5p-12288-spot": (
        ["--tpu-type", "v5p-12288", "--spot"],
        ClusterSpec("demo", PROJECT, ZONE, "gke", lookup("v5p-12288"), Capacity("spot")),
    ),
    "v6e-256-x32-spot": (
        ["--tpu-type", "v6e-256", "--num-slices", "32", "--spot"],
        ClusterSpec("demo", PROJECT, ZONE, "gke", lookup("v6e-256"), Capacity("spot"), 32),
    ),
    # issue 36: XPK's CPU-only shapes (docs/usage/cpu.md:25), and its CI's empty cluster
    # (.github/workflows/integration_basic_cluster_create.yaml:45: --num-slices=0)
    "n2-standard-32-256-cpu": (
        ["--device-type", "n2-standard-32-256", "--on-demand"],
        ClusterSpec(
            "demo", PROJECT, ZONE, "gke", lookup("n2-standard-32-256"), Capacity("on-demand")
        ),
    ),
    "n2-standard-64-1-empty": (
        ["--device-type", "n2-standard-64-1", "--num-slices", "0", "--on-demand"],
        ClusterSpec(
            "demo", PROJECT, ZONE, "gke", lookup("n2-standard-64-1"), Capacity("on-demand"), 0
        ),
    ),
    # issue 38: node auto-provisioning, TPU v6e and a GPU without GPUDirect, spot and
    # reservation (tests/providers/gke/test_nap.py compares them with XPK's NAP golden)
    "v6e-256-x2-nap-spot": (
        ["--tpu-type", "v6e-256", "--num-slices", "2", "--spot", "--enable-autoprovisioning"],
        ClusterSpec(
            "demo", PROJECT, ZONE, "gke", lookup("v6e-256"), Capacity("spot"), 2,
            options=GkeOptions(autoprovisioning=True),
        ),
    ),
    "v6e-256-nap-reservation": (
        ["--tpu-type", "v6e-256", "--reservation", "my-reservation", "--enable-autoprovisioning",
         "--autoprovisioning-max-chips", "1024"],
        ClusterSpec(
            "demo", PROJECT, ZONE, "gke", lookup("v6e-256"),
            Capacity("reservation", reservation="my-reservation"),
            options=GkeOptions(autoprovisioning=True, autoprovisioning_max_chips=1024),
        ),
    ),
    "a100-40gb-8-x2-nap-spot": (
        ["--device-type", "a100-40gb-8", "--num-nodes", "2", "--spot",
         "--enable-autoprovisioning"],
        ClusterSpec(
            "demo", PROJECT, ZONE, "gke", lookup("a100-40gb-8"), Capacity("spot"), num_nodes=2,
            options=GkeOptions(autoprovisioning=True),
        ),
    ),
    "a100-40gb-8-x2-nap-reservation": (
        ["--device-type", "a100-40gb-8", "--num-nodes", "2", "--reservation",
         "projects/shared-proj/reservations/a100-res", "--enable-autoprovisioning"],
        ClusterSpec(
            "demo", PROJECT, ZONE, "gke", lookup("a100-40gb-8"),
            Capacity("reservation", reservation="projects/shared-proj/reservations/a100-res"),
            num_nodes=2, options=GkeOptions(autoprovisioning=True),
        ),
    ),
}  # fmt: skip
