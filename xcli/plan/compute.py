"""Compute Engine request shapes shared by the providers, storage and the Compute gateway: the
API's base URL, the resource-policy collection, and where an operation of a request lives.
Pure: strings in, strings out (they left GKE's own request bodies, providers/gke/bodies.py)."""

from __future__ import annotations

COMPUTE = "https://compute.googleapis.com/compute/v1"


def operation_scope(url: str) -> str:
    """The operations collection a Compute Engine request's operation lives in: the project's
    global one, or its region's."""
    parts = url.split("/")
    if "regions" in parts:
        return "/".join(parts[: parts.index("regions") + 2])
    return "/".join(parts[: parts.index("global") + 1])


def policy_url(project: str, region: str, name: str | None = None) -> str:
    """A region's resource policies (GKE's workload policies for tpu7x and A4X are these)."""
    base = f"{COMPUTE}/projects/{project}/regions/{region}/resourcePolicies"
    return f"{base}/{name}" if name else base
