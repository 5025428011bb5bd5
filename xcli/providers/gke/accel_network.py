"""GKE's accelerator network profile on TPU pools: the extra NICs for multislice traffic (pure).

A v6e VM (`ct6e-standard-*`) has more NICs than its primary one; multislice traffic between
slices crosses the data-centre network, and without the extra NICs it shares the one that GKE
gives every node. GKE sets the extra ones up itself when the node pool asks for the accelerator
network profile `auto` (container.v1 NodeNetworkConfig.acceleratorNetworkProfile: "Immutable
... For now the only valid value is \"auto\"") and the nodes carry the label
`cloud.google.com/gke-networking-dra-driver=true` (managed DRANET: pods then claim the NICs
through DRA). Which pools, per source:

- XPK 1.16 (AI-Hypercomputer/xpk@367c8382): `supports_accelerator_network_profile=True` for
  every v6e entry of src/xpk/core/system_characteristics.py (`ct6e-standard-1t`, `-4t`), False
  for tpu7x, tpu7, v5p, v5e and v4; src/xpk/core/nodepool.py then adds
  `--accelerator-network-profile=auto` and
  `--node-labels=cloud.google.com/gke-networking-dra-driver=true`.
- Cluster Toolkit (GoogleCloudPlatform/cluster-toolkit, modules/compute/gke-node-pool
  `enable_dranet`, main.tf and gpu_direct.tf): the same field and label; allowed on `ct6e-`
  and `tpu7x-` (and GPU `a3-`, `a4-`, `a4x-`) machines, on GKE 1.34.1-gke.1829001 or later with
  Dataplane V2, and never together with explicit additional networks.

So xcli gives the profile to v6e pools, where both agree (single-host `ct6e-standard-8t` too:
Cluster Toolkit's rule is the machine prefix). tpu7x stays without it: XPK does not set it, and
no Google page read says what it changes there. GPU pools keep the explicit GPUDirect networks
xcli builds (gpu_network.py), which Cluster Toolkit forbids beside the profile; XPK's A4X pools
use the profile instead, a path xcli does not take (docs/gpu.md says why). xcli sets Dataplane V2
on every cluster (bodies.py). The version is checked here: a `--gke-version` older than the
minimum gets no profile and a plan note says so; no version (the channel's default) gets the
profile and a note naming the minimum.
"""

from __future__ import annotations

import re
from typing import Any

from xcli.providers.gke import options as gke_opts
from xcli.spec import ClusterSpec

PROFILE = "auto"
DRA_LABEL = "cloud.google.com/gke-networking-dra-driver"
FAMILIES = ("v6e",)
# cluster-toolkit modules/compute/gke-node-pool/gpu_direct.tf `dranet_min_version`
MIN_VERSION = (1, 34, 1, 1829001)
MIN_TEXT = "1.34.1-gke.1829001"
_VERSION = re.compile(r"^(\d+)\.(\d+)(?:\.(\d+))?(?:-gke\.(\d+))?$")


def applies(spec: ClusterSpec) -> bool:
    """The pools of this shape are the kind the sources give the profile."""
    return spec.accelerator.kind == "tpu" and spec.accelerator.family in FAMILIES


def _new_enough(version: str) -> bool | None:
    """Whether `--gke-version` is at least MIN_VERSION; None when it is the channel's default.

    A version given only to the minor ("1.34") or patch ("1.34.1") means GKE's newest build of
    it, so only the parts given are compared."""
    text = version.strip()
    if text in ("", "-"):
        return None
    if text == "latest":
        return True
    found = _VERSION.match(text)
    if found is None:
        return None  # an alias xcli cannot place: GKE checks it
    given = tuple(int(p) for p in found.groups() if p is not None)
    return given >= MIN_VERSION[: len(given)]


def enabled(spec: ClusterSpec) -> bool:
    return applies(spec) and _new_enough(str(gke_opts.of(spec).gke_version or "")) is not False


def notes(spec: ClusterSpec) -> list[str]:
    if not applies(spec):
        return []
    family = spec.accelerator.family
    version = str(gke_opts.of(spec).gke_version or "")
    if not enabled(spec):
        return [
            f"{family} node pools get no accelerator network profile: --gke-version {version} "
            f"is older than {MIN_TEXT}, the first that has it; multislice traffic then uses "
            "the primary NIC only"
        ]
    say = (
        f"{family} node pools ask for the accelerator network profile {PROFILE!r} (GKE adds "
        f"the VMs' extra NICs for multislice traffic; label {DRA_LABEL}=true), as XPK does"
    )
    if _new_enough(version) is None:
        say += (
            f"; it needs GKE {MIN_TEXT} or later, so the release channel's default version "
            f"must be that new (--gke-version {MIN_TEXT} or later makes sure)"
        )
    return [say]


def with_profile(spec: ClusterSpec, body: dict[str, Any]) -> dict[str, Any]:
    """The node pool body with the profile and the managed-DRANET node label, when it applies."""
    if not enabled(spec):
        return body
    pool = dict(body["nodePool"])
    config = dict(pool["config"])
    config["labels"] = {**(config.get("labels") or {}), DRA_LABEL: "true"}
    pool["config"] = config
    network = dict(pool.get("networkConfig") or {})
    network["acceleratorNetworkProfile"] = PROFILE
    pool["networkConfig"] = network
    return {**body, "nodePool": pool}
