"""A client of the OCI distribution API (Docker Registry HTTP API V2) over requests, and the
live handlers of the `image_base` and `image_push` steps.

Protocol facts followed (opencontainers/distribution-spec `spec.md` at 967efdc079b9;
distribution/distribution `docs/content/spec/auth/token.md` at 0d6b721dc3ce): a 401 carries
`WWW-Authenticate: Bearer realm=...,service=...,scope=...`; the token comes from
`GET realm?service=S&scope=...` with Basic credentials or none (anonymous), as `token` or
`access_token`; blobs are checked with HEAD; a cross-repository mount is
`POST /v2/NAME/blobs/uploads/?mount=D&from=OTHER` (201 mounted, 202 a session instead); a
chunked upload is `POST` with `Content-Length: 0`, `PATCH` with `Content-Range: start-end`
(inclusive), then `PUT Location&digest=D`; after a failed PATCH, `GET Location` answers 204
with `Range: 0-N`, the bytes the registry kept; a `Location` is used as given, relative ones
resolved against the registry. Like crane (google/go-containerregistry `pkg/v1/remote/write.go`
at 3f4ff3ca60f5), HEAD comes first, then a mount when the source is in the same registry.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any
from urllib.parse import urljoin, urlsplit

from xcli.errors import CloudError, UserError
from xcli.image.google_hosts import is_google_registry
from xcli.image.reference import DOCKER_HUB, ImageRef

Credentials = Callable[[str], "tuple[str, str] | None"]
CHUNK = 16 * 1024**2
RESUMES = 5
_ACCEPT_ALL = ", ".join(
    (
        "application/vnd.oci.image.index.v1+json",
        "application/vnd.docker.distribution.manifest.list.v2+json",
        "application/vnd.oci.image.manifest.v1+json",
        "application/vnd.docker.distribution.manifest.v2+json",
    )
)
_CHALLENGE = re.compile(r'(\w+)="([^"]*)"')


def anonymous(host: str) -> tuple[str, str] | None:
    return None


class RegistryError(CloudError):
    pass


class NotFound(UserError):
    """The registry has no such manifest. Docker Hub answers 401 for a repository it does not
    have, as for a private one, "by design" (distribution/distribution issue #1291;
    jupyterhub/binderhub PR #1664 "Docker Hub now returns 401 for missing repos")."""


class Registry:
    """One registry session: tokens cached per (realm, service, scope), bytes counted."""

    def __init__(
        self, credentials: Credentials = anonymous, session: Any = None, chunk: int = 0
    ) -> None:
        self.credentials = credentials
        self._session = session
        self.chunk = chunk or CHUNK
        self._tokens: dict[tuple[str, str, str], str] = {}
        self.sent = 0  # blob bytes uploaded
        self._lock = threading.Lock()
        self.requests: list[tuple[str, str]] = []  # (method, url), in order
        self.resumed: list[tuple[str, int]] = []  # (blob, offset) after each dropped PATCH

    @property
    def session(self) -> Any:
        if self._session is None:
            import requests

            self._session = requests.Session()
        return self._session

    # --- the HTTP layer: auth, errors ---------------------------------------------------

    def request(self, method: str, image: ImageRef, url: str, *, scope: str, **kw: Any) -> Any:
        """A request to the registry of `image`; a 401 is answered with a token once."""
        url = _guarded(image, urljoin(f"{image.scheme}://{image.api_host}/", url))
        headers = dict(kw.pop("headers", {}))
        resp = None
        for attempt in range(2):
            token = self._tokens.get(self._token_key(image, scope))
            if token:
                headers["Authorization"] = token
            self.requests.append((method, url))
            resp = self.session.request(method, url, headers=headers, timeout=300, **kw)
            if resp.status_code != 401 or attempt:
                return resp
            challenge = resp.headers.get("WWW-Authenticate", "")
            self._authenticate(image, scope, challenge)
        return resp

    def _token_key(self, image: ImageRef, scope: str) -> tuple[str, str, str]:
        return (image.api_host, scope, "")

    def _authenticate(self, image: ImageRef, scope: str, challenge: str) -> None:
        scheme = challenge.split(" ", 1)[0].lower()
        creds = self.credentials(image.host)
        if scheme == "basic" and creds:
            import requests

            basic = requests.auth._basic_auth_str(*creds)
            self._tokens[self._token_key(image, scope)] = basic
            return
        if scheme != "bearer":
            raise _denied(image, 401, "no Bearer challenge")
        params = dict(_CHALLENGE.findall(challenge))
        realm = params.get("realm", "")
        if urlsplit(realm).scheme not in ("http", "https"):
            raise _denied(image, 401, f"bad token realm {realm!r}")
        _guarded(image, realm)
        # what the challenge names, and what this request needs (a HEAD is challenged for
        # pull only, but the same token then serves the push that follows)
        scopes = list(dict.fromkeys([*params.get("scope", "").split(" "), *scope.split(" ")]))
        scopes = [s for s in scopes if s]
        query = [("service", params.get("service", ""))] + [("scope", s) for s in scopes]
        self.requests.append(("GET", realm))
        resp = self.session.get(realm, params=query, auth=creds, timeout=60)
        if resp.status_code != 200:
            raise _denied(image, resp.status_code, "the token service refused")
        body = resp.json()
        token = body.get("token") or body.get("access_token")
        if not token:
            raise _denied(image, 401, "the token service gave no token")
        self._tokens[self._token_key(image, scope)] = f"Bearer {token}"

    # --- reads --------------------------------------------------------------------------

    def manifest(self, image: ImageRef, reference: str, accept: str) -> tuple[bytes, str, str]:
        """The manifest's exact bytes, its media type and digest (checked when asked by one)."""
        resp = self.request(
            "GET",
            image,
            f"/v2/{image.name}/manifests/{reference}",
            scope=f"repository:{image.name}:pull",
            headers={"Accept": accept},
        )
        if resp.status_code == 404:
            hint = "check the name and tag (the registry answered 404)"
            if image.host == DOCKER_HUB and image.name.startswith("library/"):
                hint = (
                    f"a name without a registry is looked up on Docker Hub; an image built "
                    f"with Docker on your machine must be pushed to a registry first, then "
                    f"named with it (e.g. REGION-docker.pkg.dev/PROJECT/REPO/"
                    f"{image.name.removeprefix('library/')})"
                )
            raise NotFound(f"base image {image} not found ({_code(resp)})", hint=hint)
        if resp.status_code == 401 and image.host == DOCKER_HUB:
            raise NotFound(
                f"base image {image} is not on Docker Hub, or is private ({_code(resp)})",
                hint="check the name and tag; xcli reads Docker Hub anonymously",
            )
        _check(image, resp)
        digest = _digest(resp.content)
        if reference.startswith("sha256:") and digest != reference:
            raise RegistryError(f"{image}: manifest {reference} arrived as {digest}")
        return resp.content, resp.headers.get("Content-Type", ""), digest

    def blob(self, image: ImageRef, digest: str, out: IO[bytes] | None = None) -> bytes:
        """A blob, checked against its digest; streamed into `out` when given."""
        resp = self.request(
            "GET",
            image,
            f"/v2/{image.name}/blobs/{digest}",
            scope=f"repository:{image.name}:pull",
            stream=out is not None,
        )
        _check(image, resp)
        if out is None:
            if _digest(resp.content) != digest:
                raise RegistryError(f"{image}: blob {digest} arrived corrupted")
            return bytes(resp.content)
        sha = hashlib.sha256()
        for part in resp.iter_content(1024**2):
            sha.update(part)
            out.write(part)
        if f"sha256:{sha.hexdigest()}" != digest:
            raise RegistryError(f"{image}: blob {digest} arrived corrupted")
        return b""

    # --- writes -------------------------------------------------------------------------

    def tagged(self, image: ImageRef, tag: str, *, push: bool = True) -> str:
        """The digest the repository's tag points at, "" when there is no such tag."""
        resp = self.request(
            "HEAD",
            image,
            f"/v2/{image.name}/manifests/{tag}",
            scope=_push(image) if push else f"repository:{image.name}:pull",
            headers={"Accept": _ACCEPT_ALL},
        )
        if resp.status_code == 404 or (resp.status_code == 401 and image.host == DOCKER_HUB):
            return ""  # Docker Hub's 401 is its "no such repository" too (see NotFound)
        _check(image, resp)
        return str(resp.headers.get("Docker-Content-Digest", ""))

    def has_blob(self, image: ImageRef, digest: str) -> bool:
        resp = self.request("HEAD", image, f"/v2/{image.name}/blobs/{digest}", scope=_push(image))
        if resp.status_code in (200, 404):
            return bool(resp.status_code == 200)
        _check(image, resp)
        return False

    def start(self, image: ImageRef, digest: str = "", mount_from: str = "") -> str | None:
        """Open an upload session (its Location), or None when the blob was mounted."""
        url, scope = f"/v2/{image.name}/blobs/uploads/", _push(image)
        if mount_from:
            url += f"?mount={digest}&from={mount_from}"
            scope += f" repository:{mount_from}:pull"
        resp = self.request("POST", image, url, scope=scope, headers={"Content-Length": "0"})
        if resp.status_code == 201 and mount_from:
            return None
        if resp.status_code != 202:
            _check(image, resp)
            raise RegistryError(f"{image}: upload not started (HTTP {resp.status_code})")
        return str(resp.headers["Location"])

    def upload(
        self,
        image: ImageRef,
        digest: str,
        path: Path,
        location: str,
        progress: Callable[[int], None] | None = None,
    ) -> None:
        """Send the blob at `path` into the session at `location` (gateways/registry/upload.py:
        whole up to one chunk, else chunked with resume)."""
        from xcli.gateways.registry.upload import upload

        upload(self, image, digest, path, location, progress)

    def count_sent(self, n: int) -> None:
        with self._lock:
            self.sent += n

    def put_manifest(self, image: ImageRef, tag: str, data: bytes, media_type: str) -> str:
        resp = self.request(
            "PUT",
            image,
            f"/v2/{image.name}/manifests/{tag}",
            scope=_push(image),
            data=data,
            headers={"Content-Type": media_type},
        )
        _check(image, resp, expect=(201,))
        digest = _digest(data)
        echoed = resp.headers.get("Docker-Content-Digest", digest)
        if echoed != digest:
            raise RegistryError(
                f"{image}: registry stored manifest {echoed}, sent {digest}",
                hint="try again; if it persists, check the registry's status",
            )
        self.verify_manifest(image, digest, data)
        return digest

    def verify_manifest(self, image: ImageRef, digest: str, sent: bytes) -> None:
        """Read the manifest back by digest, as the nodes will pull it: a registry that answered
        the PUT without storing it (or stored other bytes) is caught here, before a workload
        is created that points at an image no one can pull."""
        resp = self.request(
            "GET",
            image,
            f"/v2/{image.name}/manifests/{digest}",
            scope=_push(image),
            headers={"Accept": _ACCEPT_ALL},
        )
        if resp.status_code == 404:
            raise RegistryError(
                f"registry {image.host} accepted the manifest of {image.name} but does not "
                f"serve {digest}: it was not stored",
                hint="try again; if it persists, check the registry (its storage, a proxy in "
                "front of it) before running workloads from it",
                retryable=True,
            )
        _check(image, resp)
        if _digest(resp.content) != digest:
            raise RegistryError(
                f"registry {image.host} serves other bytes as {image.name}@{digest}",
                hint="check the registry (a proxy in front of it may rewrite manifests)",
            )


def _guarded(image: ImageRef, url: str) -> str:
    """Refuse a Location or token realm that leads to a private, loopback or link-local
    address of another host than the registry's (crane's `nextLocation` and
    `validateRealmURL`, google/go-containerregistry `pkg/v1/remote/transport` at 3f4ff3ca60f5):
    a registry must not steer xcli's credentials or data into this machine's network."""
    import ipaddress

    host = urlsplit(url).hostname or ""
    own = urlsplit(f"{image.scheme}://{image.api_host}/").hostname or ""
    if host == own:
        return url
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        internal = host == "localhost" or host.endswith(".localhost")
    else:
        internal = address.is_private or address.is_loopback or address.is_link_local
    if internal:
        raise RegistryError(
            f"registry {image.host} pointed xcli at {host}, an internal address of another host",
            hint="check the registry's configuration; xcli does not follow it there",
        )
    return url


def _push(image: ImageRef) -> str:
    return f"repository:{image.name}:pull,push"


def _digest(data: bytes) -> str:
    return f"sha256:{hashlib.sha256(data).hexdigest()}"


def _code(resp: Any) -> str:
    try:
        errors = resp.json().get("errors") or [{}]
        return f"{resp.status_code} {errors[0].get('code', '')}".strip()
    except ValueError:
        return str(resp.status_code)


def _check(image: ImageRef, resp: Any, expect: tuple[int, ...] = (200,)) -> None:
    if resp.status_code in expect:
        return
    if resp.status_code in (401, 403):
        raise _denied(image, resp.status_code, _code(resp))
    raise RegistryError(
        f"registry {image.host} answered {_code(resp)} for {image.name}",
        hint="try again; if it persists, check the registry's status",
        retryable=resp.status_code >= 500,
    )


def _denied(image: ImageRef, status: int, why: str) -> RegistryError:
    google = is_google_registry(image.host)
    hint = (
        "sign in with `gcloud auth application-default login` (or set "
        "GOOGLE_APPLICATION_CREDENTIALS); pushing needs roles/artifactregistry.writer"
        if google
        else "xcli reaches this registry anonymously: use a public image, or copy the base "
        "into Artifact Registry"
    )
    return RegistryError(
        f"registry {image.host} refused access to {image.name} ({status}: {why})", hint=hint
    )
