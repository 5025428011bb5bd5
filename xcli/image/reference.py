"""Image references: `[host[:port]/]name[:tag][@digest]`, as Docker and the OCI distribution
spec write them.

The one parser of references in xcli: --docker-image, --base-docker-image, --image-repository
and `cluster preload-image` all go through `parse`.

Rules followed (the grammar of github.com/distribution/reference at commit a3fb7846,
`reference.go`'s package comment and `regexp.go`: domain components, port, path components,
tag, digest, 255 characters of name; google/go-containerregistry `pkg/name`, commit
3f4ff3ca60f5, files `registry.go`, `repository.go`, `tag.go`, `digest.go`;
opencontainers/distribution-spec `spec.md` at 967efdc079b9, "Pulling manifests"): the first
component is a host when it holds a `.` or `:` or is `localhost`; no host means Docker Hub
(`index.docker.io`, official images under `library/`); `docker.io` is written
`index.docker.io`, whose API host is `registry-1.docker.io`;
the name matches `[a-z0-9]+((\\.|_|__|-+)[a-z0-9]+)*(/...)*`, a tag
`[a-zA-Z0-9_][a-zA-Z0-9._-]{0,127}`, a digest `sha256:` and 64 lowercase hex digits; the
scheme is http only for loopback hosts (`localhost`, `127.0.0.1`, `[::1]`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from xcli.errors import UserError

DOCKER_HUB = "index.docker.io"
DOCKER_HUB_API = "registry-1.docker.io"
_COMPONENT = r"[a-z0-9]+(?:(?:\.|_|__|-+)[a-z0-9]+)*"
_NAME = re.compile(rf"^{_COMPONENT}(?:/{_COMPONENT})*$")
_TAG = re.compile(r"^[a-zA-Z0-9_][a-zA-Z0-9._-]{0,127}$")
_DIGEST = re.compile(r"^sha256:[a-f0-9]{64}$")
# distribution/reference (a3fb7846) `domainComponent` `(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*
# [a-zA-Z0-9])` joined by '.', or an IPv6 address in brackets, then an optional `:port`
_LABEL = r"(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])"
_HOST = re.compile(rf"^(?:{_LABEL}(?:\.{_LABEL})*|\[[0-9a-fA-F:]+\])(?::([0-9]+))?$")
_WHITESPACE = re.compile(r"[\s\x00-\x1f\x7f]")
_HINT = (
    "write it as [HOST[:PORT]/]NAME[:TAG][@sha256:DIGEST] with a lowercase NAME, e.g. "
    "python:3.10 or us-docker.pkg.dev/PROJECT/REPO/IMAGE:TAG"
)


@dataclass(frozen=True)
class ImageRef:
    """A parsed reference. `reference` is the tag or digest a manifest request names."""

    host: str
    name: str
    tag: str = ""
    digest: str = ""

    @property
    def reference(self) -> str:
        return self.digest or self.tag or "latest"

    @property
    def api_host(self) -> str:
        return DOCKER_HUB_API if self.host == DOCKER_HUB else self.host

    @property
    def scheme(self) -> str:
        bare = self.host.rsplit(":", 1)[0] if not self.host.startswith("[") else self.host
        loopback = bare in ("localhost", "127.0.0.1") or self.host.startswith("[::1]")
        return "http" if loopback else "https"

    @property
    def repository(self) -> str:
        """host/name: where manifests and blobs of this image live."""
        return f"{self.host}/{self.name}"

    def with_digest(self, digest: str) -> ImageRef:
        return ImageRef(self.host, self.name, digest=digest)

    def __str__(self) -> str:
        out = self.repository
        if self.tag:
            out += f":{self.tag}"
        if self.digest:
            out += f"@{self.digest}"
        return out


def parse(text: str, *, what: str = "image") -> ImageRef:
    """Parse `text`; a malformed reference is one UserError naming it."""

    def bad(why: str) -> UserError:
        return UserError(f"invalid {what} reference {text!r}: {why}", hint=_HINT)

    rest, digest = text, ""
    if not rest:
        raise bad("it is empty")
    if _WHITESPACE.search(rest):  # "img\n" is not "img": nothing is trimmed
        raise bad("it holds whitespace or control characters")
    if "@" in rest:
        rest, digest = rest.split("@", 1)
        if not _DIGEST.match(digest):
            raise bad("the digest must be sha256: and 64 lowercase hex digits")
    host, path = DOCKER_HUB, rest
    first, _, remainder = rest.partition("/")
    if remainder and ("." in first or ":" in first or first == "localhost"):
        host, path = first, remainder
        found = _HOST.match(host)
        if not found:
            raise bad(f"{host!r} is not a host[:port]")
        if found.group(1) is not None and not 0 < int(found.group(1)) <= 65535:
            raise bad(f"the port {found.group(1)} is not 1-65535")
    tag = ""
    if ":" in path.rsplit("/", 1)[-1]:
        path, tag = path.rsplit(":", 1)
        if not _TAG.match(tag):
            raise bad(f"the tag {tag!r} is not [a-zA-Z0-9_][a-zA-Z0-9._-]{{0,127}}")
    if host in ("docker.io", DOCKER_HUB_API):
        host = DOCKER_HUB
    if host == DOCKER_HUB and "/" not in path:
        path = f"library/{path}"
    if not _NAME.match(path):
        raise bad(f"the name {path!r} is not lowercase components joined by '/'")
    if len(host) + 1 + len(path) > 255:
        raise bad("host and name together are longer than 255 characters")
    return ImageRef(host, path, tag=tag if tag or digest else "latest", digest=digest)
