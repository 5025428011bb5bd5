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
from xcli.image.reference import ImageRef
from xcli.image.steps import ArRepository, ImageBase, ImagePush
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


def prepare(
    request: BuildRequest,
    store: Store,
    progress: Callable[[int], None] | None = None,
    max_bytes: int = folder.MAX_BYTES,
    packing: Callable[[], None] | None = None,
) -> Build:
    """Check every input, pack the folder, and plan the push. No network. `packing` is called
    once every check has passed, just before the (slow) packing starts, so a refusal comes
    first and alone."""
    base = reference.parse(request.base, what="--base-docker-image")
    dest = target(request)
    context = folder.scan(request.script_dir, max_bytes=max_bytes)
    if packing is not None:
        packing()
    layers = tuple(store.build(context, progress))
    steps: list[Step] = []
    ar = _ar_repository(dest)
    if ar is not None:
        steps.append(ar)
    read = ImageBase(
        id="image-base",
        summary=f"read base image {base} ({request.platform})",
        image=base,
        platform=request.platform,
        store=str(store.root),
    )
    steps.append(read)
    push = ImagePush(
        id=BUILD_STEP,
        summary=f"push {dest} ({_count(len(layers), 'layer')} from "
        f"{request.script_dir.name or '.'}/)",
        after=tuple(s.id for s in steps),
        image=dest,
        tag=_tag(base, request.platform, layers),
        base=base,
        base_step=read.id,
        layers=layers,
        source="--script-dir",  # not the folder's name: the same digest from any checkout
        store=str(store.root),
    )
    steps.append(push)
    return Build(
        context, layers, tuple(steps), Fmt("{}@{}", dest.repository, Ref(push.id, "digest"))
    )


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


def _tag(base: ImageRef, platform: str, layers: tuple[Layer, ...]) -> str:
    seed = "\n".join([str(base), platform, *(x.diff_id for x in layers)])
    return f"xcli-{hashlib.sha256(seed.encode()).hexdigest()[:16]}"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"
