"""The golden queued-resource scenarios, shared by plan, gateway and provider tests."""

from __future__ import annotations

from xcli.catalog import lookup
from xcli.providers.queued_resource.options import qr_options
from xcli.spec import Capacity, ClusterSpec

PROJECT, ZONE = "my-proj", "us-east5-b"
V4_ZONE = "us-central2-b"  # v4 is offered there only (xcli/catalog/zones.json)
STARTUP = "#!/bin/bash\necho ready\n"


def spec(
    name: str, tpu: str, capacity: Capacity, slices: int = 1, zone: str = ZONE, **options: object
) -> ClusterSpec:
    opts: dict[str, object] = {"ssh_user": "alice", **options}
    return ClusterSpec(
        name=name,
        project=PROJECT,
        zone=zone,
        provider="queued-resource",
        accelerator=lookup(tpu),
        capacity=capacity,
        num_slices=slices,
        options=qr_options(opts),
    )


SCENARIOS: dict[str, ClusterSpec] = {
    "v5litepod-16-spot": spec(
        "lite", "v5litepod-16", Capacity("spot"), valid_until_duration="6h", labels=("team=ml",)
    ),
    "v6e-256-x4-flex-start-6h": spec(
        "flex",
        "v6e-256",
        Capacity("flex-start", max_run_duration=6 * 3600),
        slices=4,
        internal_ips=True,
        network="ml-net",
        subnetwork="ml-sub",
    ),
    "v5p-128-reservation": spec(
        "resv",
        "v5p-128",
        Capacity("reservation", reservation="my-res"),
        service_account="tpu@my-proj.iam.gserviceaccount.com",
        tags=("ml,ssh",),
    ),
    "v4-8-on-demand-startup": spec(
        "boot",
        "v4-8",
        Capacity("on-demand"),
        metadata_from_file=(("startup-script", STARTUP),),
        runtime_version="tpu-ubuntu2204-base",
        zone=V4_ZONE,
    ),
    "v6e-8-guaranteed": spec(
        "guar",
        "v6e-8",
        Capacity("guaranteed", min_duration=2 * 3600),
        valid_after_time="2026-12-01T08:00:00Z",
        valid_until_duration="12h",
    ),
    "v5litepod-16-os-login": spec(
        "login", "v5litepod-16", Capacity("spot"), ssh_user=None, os_login=True
    ),
}
