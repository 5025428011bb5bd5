"""An image build as a value: the folder read and packed (locally, offline), then the plan
steps that read the base image and push the result, and the image the workload runs.

The workload runs the image by digest: `HOST/NAME@${build.digest}` until the push step has
run. The tag is a hash of the base reference, the platform and the layers' DiffIDs, so the
same folder on the same base gets the same tag, and re-pushing it changes nothing.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from xcli.errors import UserError
from xcli.image import context as folder
from xcli.image import reference
from xcli.image.layers import Layer, Store
from xcli.image.local import DOCKER_SOCKET, PODMAN_SOCKET, EngineBase, EngineLookup
from xcli.image.reference import ImageRef
from xcli.image.steps import ArReaderGrant, ArRepository, ImageBase, ImagePush
from xcli.plan.model import Fmt, Ref, Step

# XPK's default base (AI-Hypercomputer/xpk at 367c838253be, src/xpk/core/docker_image.py,
# DEFAULT_DOCKER_IMAGE).
DEFAULT_BASE = "python:3.10"
DEFAULT_REPOSITORY = "xcli"
BUILD_STEP = "build"
_AR_HOST = re.compile(r"^([a-z0-9-]+)-docker\.pkg\.dev$")


@dataclass(frozen=True)
class BuildRequest:
    script_dir: Path
    base: str  # the --base-docker-image text
    platform: str  # "linux/amd64" or "linux/arm64"
    repository: str  # where images go: HOST/PATH (an Artifact Registry repository or any)
    name: str  # the image's name under `repository`
    node_project: str | None = None  # whose nodes pull it (granted the reader role on AR)
    include: tuple[str, ...] = ()  # --script-include: secret or VCS paths packed on purpose


@dataclass(frozen=True)
class Build:
    context: folder.Context
    layers: tuple[Layer, ...]
    steps: tuple[Step, ...]
    image: Fmt  # what the workload runs: repository/name@${build.digest}

    @property
    def last(self) -> str:
        return BUILD_STEP


def platform_for(device_type: str) -> str:
    """A4X (GB200, Arm hosts) runs linux/arm64; every other shape linux/amd64 (XPK's
    `docker_platform`, src/xpk/core/system_characteristics.py at 367c838253be)."""
    return "linux/arm64" if device_type.lower().startswith("gb200") else "linux/amd64"


def default_repository(project: str, region: str) -> str:
    return f"{region}-docker.pkg.dev/{project}/{DEFAULT_REPOSITORY}"


def image_name(user: str) -> str:
    """`<user>-runner` as XPK names it, made a valid name component (lowercase, no '@')."""
    cleaned = re.sub(r"[^a-z0-9]+", "-", user.lower()).strip("-")
    return f"{cleaned or 'xcli'}-runner"


def target(request: BuildRequest) -> ImageRef:
    text = f"{request.repository.rstrip('/')}/{request.name}"
    image = reference.parse(text, what="--image-repository")
    if image.tag != "latest" or image.digest or ":" in text.rsplit("/", 1)[-1]:
        raise UserError(
            f"--image-repository {request.repository!r} must not carry a tag or digest",
            hint="give HOST/PATH, e.g. us-central1-docker.pkg.dev/PROJECT/xcli",
        )
    return ImageRef(image.host, image.name)


def asks_engine(base: str) -> bool:
    """Whether a local Docker Engine or Podman may hold `base`: a name without a registry
    (Docker Hub's, as Docker resolves it) or Podman's `localhost/NAME`. A name with a registry
    is read from that registry."""
    image = reference.parse(base, what="--base-docker-image")
    return image.host in (reference.DOCKER_HUB, "localhost") and not base.startswith(
        ("docker.io/", "index.docker.io/", "registry-1.docker.io/")
    )


def prepare(
    request: BuildRequest,
    store: Store,
    progress: Callable[[int], None] | None = None,
    max_bytes: int = folder.MAX_BYTES,
    local: EngineLookup | None = None,
    packing: Callable[[], None] | None = None,
) -> Build:
    """Check every input, pack the folder, and plan the push. No network. `local` is what
    the local engine said of the base (None: it was not asked); `packing` is called once every
    check has passed, just before the (slow) packing starts, so a refusal comes first and
    alone."""
    base = reference.parse(request.base, what="--base-docker-image")
    dest = target(request)
    context = folder.scan(request.script_dir, max_bytes=max_bytes, include=request.include)
    if packing is not None:
        packing()
    layers = tuple(store.build(context, progress))
    steps: list[Step] = []
    ar = _ar_repository(dest)
    if ar is not None:
        steps.append(ar)
        if request.node_project:
            steps.append(_reader_grant(ar, request.node_project))
    read = _read_base(request, base, store, local)
    steps.append(read)
    push = ImagePush(
        id=BUILD_STEP,
        summary=f"push {dest} ({_count(len(layers), 'layer')} from "
        f"{request.script_dir.name or '.'}/)",
        after=tuple(s.id for s in steps),
        image=dest,
        tag=_tag(base, request.platform, layers, getattr(read, "image_id", "")),
        base=base,
        base_step=read.id,
        layers=layers,
        source="--script-dir",  # not the folder's name: the same digest from any checkout
        store=str(store.root),
        withheld=context.withheld,
    )
    steps.append(push)
    return Build(
        context, layers, tuple(steps), Fmt("{}@{}", dest.repository, Ref(push.id, "digest"))
    )


def in_artifact_registry(repository: str) -> bool:
    """Whether HOST/PATH names an Artifact Registry Docker repository (LOCATION-docker.pkg.dev)."""
    return _AR_HOST.match(repository.split("/", 1)[0]) is not None


def _ar_repository(dest: ImageRef) -> ArRepository | None:
    match = _AR_HOST.match(dest.host)
    parts = dest.name.split("/")
    if match is None or len(parts) < 3:
        return None
    return ArRepository(
        id="image-repository",
        summary=f"Artifact Registry repository {parts[1]} in {match.group(1)}",
        project=parts[0],
        location=match.group(1),
        repository=parts[1],
    )


def _reader_grant(ar: ArRepository, node_project: str) -> ArReaderGrant:
    return ArReaderGrant(
        id="image-reader",
        summary=f"let the nodes of project {node_project} pull from {ar.repository} "
        "(roles/artifactregistry.reader for the default Compute Engine service account)",
        after=(ar.id,),
        project=ar.project,
        location=ar.location,
        repository=ar.repository,
        node_project=node_project,
    )


def _read_base(
    request: BuildRequest, base: ImageRef, store: Store, local: EngineLookup | None
) -> Step:
    """The step that reads the base: an export from the local engine that holds it, else a
    registry read whose summary says where a short name goes when no engine holds it."""
    if local is not None and local.image is not None:
        found = local.image
        return EngineBase(
            id="image-base",
            summary=f"read base image {request.base} {local.note(request.base)} "
            f"({found.id[:19]}, {_count(found.layers, 'layer')}, {request.platform})",
            name=request.base,
            image=base,
            socket=found.socket,
            api=found.api,
            image_id=found.id,
            platform=request.platform,
            store=str(store.root),
        )
    where = ""
    if local is not None and base.host == reference.DOCKER_HUB:
        where = f" from Docker Hub: {local.note(request.base)}"
    return ImageBase(
        id="image-base",
        summary=f"read base image {base} ({request.platform}){where}",
        image=base,
        platform=request.platform,
        store=str(store.root),
        missing_hint=_missing_hint(request.base) if local is not None else "",
    )


def _missing_hint(name: str) -> str:
    """The ways to get a base that only exists on some machine into reach."""
    short = name.rsplit("/", 1)[-1].split(":", 1)[0]
    return (
        f"a name without a registry is Docker Hub's. For an image built on your machine: run "
        f"xcli where Docker or Podman holds it (its socket at {DOCKER_SOCKET}, "
        f"$XDG_RUNTIME_DIR/{PODMAN_SOCKET}, or DOCKER_HOST=unix://PATH) and xcli reads it from "
        f"there; or push it (`docker tag {name} REGION-docker.pkg.dev/PROJECT/REPO/{short}` "
        f"and `docker push` that name) and pass that name to --base-docker-image"
    )


def _tag(base: ImageRef, platform: str, layers: tuple[Layer, ...], image_id: str = "") -> str:
    seed = "\n".join([str(base), platform, *(x.diff_id for x in layers)])
    if image_id:  # a local base: the same name may be rebuilt with other content
        seed += f"\n{image_id}"
    return f"xcli-{hashlib.sha256(seed.encode()).hexdigest()[:16]}"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"
