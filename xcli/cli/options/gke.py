"""Flags of `xcli cluster create` that only the gke provider takes."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import click

from xcli import formats
from xcli.errors import UserError


def _ray_version(value: str) -> str:
    from xcli.plan.gke.ray import check_version

    return check_version(value)


def _region(value: str) -> str:
    if not re.fullmatch(r"[a-z]+-[a-z]+[0-9]+", value):
        raise UserError(
            f"--tensorboard-region {value!r} is not a region",
            hint="e.g. --tensorboard-region "
            "us-central1 (https://cloud.google.com/vertex-ai/docs/general/locations)",
        )
    return value


def _display_name(value: str) -> str:
    # GoogleCloudAiplatformV1Tensorboard.displayName: up to 128 UTF-8 characters
    if not value.strip() or len(value) > 128 or not value.isprintable():
        raise UserError(
            f"--tensorboard-name {value!r} is not a Tensorboard display name",
            hint="give 1-128 printable characters, e.g. --tensorboard-name tb-testing",
        )
    return value


# Defaults are None so that a flag left alone never counts as "given" for another provider;
# the GKE planner fills in the documented defaults.
OPTIONS: list[Callable[[Any], Any]] = [
    click.option(
        "--release-channel",
        type=click.Choice(["rapid", "regular", "stable", "extended"], case_sensitive=False),
        help="GKE release channel (gke; default regular).",
    ),
    click.option(
        "--gke-version",
        metavar="V",
        callback=formats.flag_callback(formats.gke_version),
        help="GKE version, e.g. 1.34.1-gke.1829001 (gke).",
    ),
    click.option(
        "--cpu-machine-type",
        metavar="TYPE",
        callback=formats.flag_callback(formats.machine_type),
        help="Machine type of the system node pool that runs the controllers "
        "(gke; default sized by the cluster: e2-standard-8 up to ~900 nodes).",
    ),
    click.option(
        "--cpu-num-nodes",
        type=click.IntRange(1, 1000),
        help="Nodes of the system node pool, at least; fewer than the controllers need are "
        "raised to that, and the plan says so (gke; default sized by the cluster).",
    ),
    click.option(
        "--pool-parallelism",
        type=click.IntRange(1, 100),
        help="Node pools created at once (gke; default 100, as XPK; GKE runs one operation "
        "per pool at a time).",
    ),
    click.option(
        "--image-streaming",
        is_flag=True,
        help="Image streaming (gcfsConfig) on the accelerator node pools: containers start "
        "before their image is fully pulled (gke).",
    ),
    click.option(
        "--secondary-boot-disk",
        multiple=True,
        metavar="IMAGE",
        help="Preload container images from a disk image (projects/P/global/images/NAME, "
        "built with gke-disk-image-builder) on every accelerator node; turns on image "
        "streaming (gke; repeatable).",
    ),
    click.option(
        "--slice-restarts",
        is_flag=True,
        help="Turn on JobSet's RestartJob feature gate (alpha), so that `workload create "
        "--restart-scope slice` can restart one slice's Job alone (gke).",
    ),
    click.option(
        "--lustre-legacy-port",
        is_flag=True,
        help="Turn the Managed Lustre CSI driver on at create with its legacy port 6988 "
        "(enableLegacyLustrePort): only for nodes older than 1.33.2-gke.4655000, or Lustre "
        "instances made with gke-support-enabled (gke).",
    ),
    click.option(
        "--ml-diagnostics",
        is_flag=True,
        help="GKE Managed Machine Learning Diagnostics: the cluster's "
        "managedMachineLearningDiagnosticsConfig, and the roles it writes with granted to the "
        "nodes' default service account, as XPK's --managed-mldiagnostics (gke; GKE "
        "1.35.0-gke.3065000 or later).",
    ),
    click.option(
        "--vertex-tensorboard",
        is_flag=True,
        help="Keep or create a Vertex AI Tensorboard for the cluster's workloads and record it "
        "in the cluster's metadata, as XPK's --create-vertex-tensorboard (gke).",
    ),
    click.option(
        "--tensorboard-region",
        metavar="REGION",
        callback=formats.flag_callback(_region),
        help="Region of the Tensorboard (gke, --vertex-tensorboard; default us-central1, as XPK).",
    ),
    click.option(
        "--tensorboard-name",
        metavar="NAME",
        callback=formats.flag_callback(_display_name),
        help="Display name of the Tensorboard (gke, --vertex-tensorboard; default "
        "<cluster>-tb-instance, as XPK).",
    ),
    click.option(
        "--pathways",
        is_flag=True,
        help="Add what Pathways workloads need: the CPU node pool cpu-np (1-20 nodes) for "
        "their heads and its Kueue flavor (gke, TPU only; see docs/pathways.md).",
    ),
    click.option(
        "--pathways-cpu-machine-type",
        metavar="TYPE",
        callback=formats.flag_callback(
            lambda v: formats.machine_type(v, "--pathways-cpu-machine-type")
        ),
        help="Machine type of the Pathways head pool; it must have at least 49 vCPUs and "
        "238592 MB (gke; default n2-standard-64, as XPK).",
    ),
    click.option(
        "--ray-version",
        metavar="V",
        callback=formats.flag_callback(_ray_version),
        help="XPK's `cluster create-ray`: turn on GKE's Ray Operator add-on (KubeRay) and apply "
        "a RayCluster ray/raycluster of rayproject/ray:V, one TPU worker replica per slice "
        "(gke, TPU only; see docs/ray.md).",
    ),
    # XPK's names (AI-Hypercomputer/xpk@367c838 src/xpk/parser/cluster.py); providers/gke/nap.py
    click.option(
        "--enable-autoprovisioning",
        is_flag=True,
        help="Node auto-provisioning: create no accelerator node pools; GKE creates them when "
        "workloads ask, of any shape of the accelerator's family within the chip limits "
        "(gke; see docs/tpu.md).",
    ),
    click.option(
        "--autoprovisioning-min-chips",
        type=click.IntRange(0, None),
        metavar="N",
        help="With --enable-autoprovisioning: chips GKE keeps at least (gke; default 0).",
    ),
    click.option(
        "--autoprovisioning-max-chips",
        type=click.IntRange(1, None),
        metavar="N",
        help="With --enable-autoprovisioning: chips auto-provisioned pools may hold at most "
        "(gke; default the chips of --tpu-type x --num-slices, or --num-nodes GPUs).",
    ),
    click.option(
        "--super-slicing",
        is_flag=True,
        help="Dynamic slicing for TPU7x on an All Capacity reservation: node pools of 4x4x4 "
        "sub-blocks (--tpu-type tpu7x-4x4x4) that GKE's slice controller joins into slices of "
        "each workload's --tpu-type (gke; needs --reservation; docs/tpu.md).",
    ),
    click.option(
        "--num-cubes",
        type=click.IntRange(1, 144),
        help="With --super-slicing: how many 4x4x4 sub-blocks (node pools of 16 VMs) the "
        "cluster gets (gke; default --num-slices; XPK's name).",
    ),
]
