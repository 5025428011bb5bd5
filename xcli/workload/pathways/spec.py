"""What a Pathways workload is: a frozen, checked request (pure).

Sources (cited as in docs/upstream.md):
- XPK: AI-Hypercomputer/xpk@367c838 src/xpk/templates/pathways_workload_create.yaml.j2,
  src/xpk/commands/workload.py, src/xpk/core/pathways.py, src/xpk/parser/workload.py.
- PJ: google/pathways-job@c0cc759 api/v1/pathwaysjob_types.go,
  internal/controller/pathwaysjob_controller.go (ports, images, the TPU version map).
- PU: AI-Hypercomputer/pathways-utils@8950a34
  pathwaysutils/experimental/shared_pathways_service/deploy_pathways_service.py (image tag
  `jax-<version>`, default jax 0.9.0).
- DOCS: Google Cloud "Pathways on Cloud" pages (batch-workload, pathways-interactive-mode:
  the workload name "must be 22 characters or fewer due to DNS label limits").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from xcli.catalog.model import Accelerator
from xcli.errors import UserError
from xcli.plan.storage_types.gcsfuse import gcs_location

MAX_NAME = 22  # DOCS pathways-interactive-mode
IMAGE_REPO = "us-docker.pkg.dev/cloud-tpu-v2-images/pathways"  # XPK and PJ defaults
# Tag of the server and proxy images when --pathways-version is not given: the one
# pathways-utils' service deploy script pins (PU, `server:jax-0.9.0`). Printed by the plan.
DEFAULT_VERSION = "jax-0.9.0"
_TAG = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$")  # OCI distribution spec tag grammar

# `--instance_type=<version>:<topology>` of the resource manager: XPK's pathways_tpu_version
# (src/xpk/core/system_characteristics.py), by GKE machine type (PJ MachineTypeToTPUVersionMap
# agrees, except that it names the single-chip-host v5e/v6e machines tpuv5e1t/tpuv6e1t where
# XPK keeps tpuv5e/tpuv6e; xcli follows XPK, whose template is the one it reproduces).
TPU_VERSIONS = {
    "tpu7x-standard-4t": "tpu7x",
    "ct6e-standard-4t": "tpuv6e",
    "ct6e-standard-8t": "tpuv6e",
    "ct6e-standard-1t": "tpuv6e",
    "ct5p-hightpu-4t": "tpuv5",
    "ct5lp-hightpu-4t": "tpuv5e",
    "ct5lp-hightpu-8t": "tpuv5e",
    "ct5lp-hightpu-1t": "tpuv5e",
    "ct4p-hightpu-4t": "tpuv4",
}


@dataclass(frozen=True)
class PathwaysSpec:
    """One Pathways workload on one cluster."""

    name: str
    accelerator: Accelerator
    num_slices: int
    gcs_location: str  # --gcs_scratch_location of proxy, RM and workers
    version: str = DEFAULT_VERSION  # tag of the server and proxy_server images
    image: str | None = None  # the user's container; None when headless
    command: str | None = None
    headless: bool = False
    elastic_slices: int = 0
    max_slice_restarts: int = 1
    namespace: str = "default"
    local_queue: str = "xcli-queue"
    priority: str = "medium"
    capacity_kind: str = "on-demand"
    termination_grace_period: int = 30
    env: tuple[tuple[str, str], ...] = ()

    @property
    def server_image(self) -> str:
        return f"{IMAGE_REPO}/server:{self.version}"

    @property
    def proxy_image(self) -> str:
        return f"{IMAGE_REPO}/proxy_server:{self.version}"

    @property
    def instance_type(self) -> str:
        accel = self.accelerator
        return f"{TPU_VERSIONS[accel.machine_type]}:{accel.topology}"

    def images(self) -> tuple[str, ...]:
        """Every image the JobSet pulls, in the order the plan prints them."""
        user = () if self.headless or not self.image else (self.image,)
        return (self.proxy_image, self.server_image, *user)


def check(spec: PathwaysSpec) -> None:
    """Bad input, one line and a hint each, before any call."""
    if len(spec.name) > MAX_NAME:
        raise UserError(
            f"workload name {spec.name!r} has {len(spec.name)} characters; a Pathways workload "
            f"takes at most {MAX_NAME} (its pods' DNS names must stay within 63)",
            hint="choose a shorter --workload name",
        )
    accel = spec.accelerator
    if accel.kind != "tpu" or accel.machine_type not in TPU_VERSIONS:
        raise UserError(
            f"Pathways runs on TPU slices; {accel.name} is not one Pathways serves",
            hint="run it with `xcli workload create` without --pathways",
        )
    if spec.headless and spec.command:
        raise UserError(
            "--headless starts only the Pathways side; it takes no --command",
            hint="drop --command and connect with `xcli workload connect NAME`, or drop --headless",
        )
    if not spec.headless and not (spec.command and spec.image):
        raise UserError(
            "a batch Pathways workload needs --command and an image (--docker-image)",
            hint="pass both, or --headless to start Pathways alone and connect to it",
        )
    if not _TAG.match(spec.version):
        raise UserError(
            f"--pathways-version {spec.version!r} is not an image tag",
            hint=f"pass a tag of {IMAGE_REPO}/server, e.g. {DEFAULT_VERSION}",
        )
    gcs_location(spec.gcs_location, "--pathways-gcs-location")  # every gs:// flag's rule
    if not 0 <= spec.elastic_slices < spec.num_slices:
        raise UserError(
            f"--elastic-slices {spec.elastic_slices} must be below the {spec.num_slices} "
            "slices of the cluster (the slices that may be missing while training goes on)",
            hint=f"pass a number from 0 to {spec.num_slices - 1}",
        )
    if spec.max_slice_restarts < 1:
        raise UserError(
            "--max-slice-restarts must be at least 1",
            hint="pass --max-slice-restarts 1 (the default)",
        )
