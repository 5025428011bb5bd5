"""(j) images_pulled: the nodes may pull every image the plan builds and pushes.

GKE node pools without `config.serviceAccount` run as the project's default Compute Engine
service account (`NUMBER-compute@developer.gserviceaccount.com`: container v1 NodeConfig
`serviceAccount`, "If unspecified, the "default" service account is used"). Artifact Registry
"Deploying to Compute Engine": in organisations created after 2024-05-03 that account has no
Editor role (iam.automaticIamGrantsForDefaultServiceAccounts), and pulling needs
roles/artifactregistry.reader on the repository. So a plan that pushes to an Artifact Registry
repository (an `image_push` step to LOCATION-docker.pkg.dev/PROJECT/REPO/...) must grant that
account a role that pulls (an `ar_reader` step on the same repository), or its pods end in
ImagePullBackOff. Images the plan does not push are not judged (their access is the user's).
"""

from __future__ import annotations

import re
from typing import Any

AR_HOST = re.compile(r"^([a-z0-9-]+)-docker\.pkg\.dev/([^/]+)/([^/]+)/")
DEFAULT_SA = re.compile(r"^serviceAccount:\S+-compute@developer\.gserviceaccount\.com$")
PULLS = {"roles/artifactregistry.reader", "roles/artifactregistry.writer"}


def images_pulled(cluster_bodies: list[dict[str, Any]], plan: list[dict[str, Any]]) -> list[str]:
    if any(b.get("config", {}).get("serviceAccount") for b in cluster_bodies):
        return []  # a pool with its own service account: not the case xcli plans
    granted = {
        s["repository"]
        for s in plan
        if s.get("kind") == "ar_reader" and s.get("role") in PULLS
        and DEFAULT_SA.match(str(s.get("member", "")))
    }  # fmt: skip
    lines = []
    for step in plan:
        match = (
            AR_HOST.match(str(step.get("image", ""))) if step.get("kind") == "image_push" else None
        )
        if match is None:
            continue
        location, project, repo = match.groups()
        name = f"projects/{project}/locations/{location}/repositories/{repo}"
        if name not in granted:
            lines.append(
                f"image_push {step['id']} to {name}: the nodes' default Compute Engine service "
                "account gets no roles/artifactregistry.reader on it (pods end in "
                "ImagePullBackOff where that account has no Editor role)"
            )
    return lines
