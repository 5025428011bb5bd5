"""Which registry hosts are Google's: the only hosts that may receive the user's Google access
token (a push's credentials) or the TPU VM's own token (`gcloud auth configure-docker`).

The hosts, from GoogleCloudPlatform/docker-credential-gcr (commit 0b5913af502a, file
`config/const.go`, `DefaultGCRRegistries` and `DefaultARRegistries`): Container Registry is
`gcr.io` and its regional hosts `us.gcr.io`, `eu.gcr.io`, `asia.gcr.io`, `marketplace.gcr.io`;
Artifact Registry's Docker hosts are `LOCATION-docker.pkg.dev` (a region such as
`us-central1` or a multi-region `us`, `europe`, `asia`), as the Artifact Registry docs write
them (cloud.google.com/artifact-registry/docs/docker/names). The match is exact: the whole
host, lowercase (DNS names are case-insensitive), with no port, is `gcr.io`, one DNS label and
`.gcr.io`, or one DNS label ending `-docker` and `.pkg.dev`. gcr.io and pkg.dev are Google's
domains, so every name of that form is Google's; a bare suffix test (`endswith("gcr.io")`)
also matches `mygcr.io`, `notgcr.io` or `usgcr.io`, which anyone can register.
"""

from __future__ import annotations

import re

_LABEL = r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?"
_GOOGLE = re.compile(rf"^(?:gcr\.io|{_LABEL}\.gcr\.io|{_LABEL}-docker\.pkg\.dev)$")


def is_google_registry(host: str | None) -> bool:
    """True when `host` (a reference's registry part, as written) is one of Google's."""
    return bool(host) and _GOOGLE.match(str(host).lower()) is not None
