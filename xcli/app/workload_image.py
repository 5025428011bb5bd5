"""`workload create --base-docker-image IMG --script-dir DIR`: the image build in front of the
workload's plan, in one use case (issue 24).

The CLI hands `ImageFlags`; `image_text` is what the workload's planner gets as its image
(`HOST/NAME@${build.digest}`, known before anything is read); once the workload is planned,
`with_image` packs the folder (locally: no network, no credentials, so the dry-run shows the
layer digests), plans the build and splices it in front, so a live run pushes first and the
JobSet runs the image by digest. The registry handlers come through `Deps.image_handlers`.
"""

from __future__ import annotations

import dataclasses
import getpass
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from xcli.errors import UserError
from xcli.image import build as image_build
from xcli.plan.model import Plan
from xcli.plan.steps import K8sApply

Handlers = Callable[[], Mapping[str, Any]]


@dataclass(frozen=True)
class ImageFlags:
    base: str  # --base-docker-image
    script_dir: Path  # --script-dir
    repository: str | None = None  # --image-repository (default: Artifact Registry, region)
    container_name: str | None = None  # --docker-name
    pull_secret: str | None = None  # --docker-image-pull-secret


def region_of(zone: str) -> str:
    """us-central1-a -> us-central1; a region stays itself."""
    parts = zone.split("-")
    return "-".join(parts[:2]) if len(parts) > 2 else zone


def destination(flags: ImageFlags, project: Callable[[], str], zone: Callable[[], str]) -> str:
    """Where the image goes: --image-repository, else LOCATION-docker.pkg.dev/PROJECT/xcli,
    the location being the cluster's region."""
    if flags.repository:
        return flags.repository
    return image_build.default_repository(project(), region_of(zone()))


def request_for(flags: ImageFlags, repository: str, platform: str) -> image_build.BuildRequest:
    return image_build.BuildRequest(
        flags.script_dir.expanduser(),
        flags.base,
        platform,
        repository,
        image_build.image_name(_user()),
    )


def image_text(request: image_build.BuildRequest) -> str:
    """What the workload's planner is handed: the pushed image by digest, symbolically."""
    return f"{image_build.target(request).repository}@${{{image_build.BUILD_STEP}.digest}}"


def check(flags: ImageFlags, repository: str) -> None:
    """Everything about the flags that needs neither the cluster nor the folder's content."""
    from xcli.image import reference

    reference.parse(flags.base, what="--base-docker-image")
    image_build.target(request_for(flags, repository, "linux/amd64"))
    if not flags.script_dir.expanduser().is_dir():
        raise UserError(
            f"--script-dir {flags.script_dir} is not a folder",
            hint="pass the folder whose files the workload runs (default: the current one)",
        )


def with_image(
    flags: ImageFlags,
    repository: str,
    plan: Plan,
    handlers: Handlers,
    image_handlers: Handlers,
    store_root: Path,
    progress: Callable[[int], None] | None = None,
) -> tuple[Plan, Handlers]:
    """The workload's plan with the build in front, and the handlers of both."""
    from xcli.image.layers import Store
    from xcli.image.splice import splice

    request = request_for(flags, repository, platform_of(plan))
    built = image_build.prepare(request, Store(store_root), progress)
    plan = _dress(plan, str(built.image), flags)
    spliced = splice(built, plan)
    if built.context.excluded:
        note = f"left out by .dockerignore: {len(built.context.excluded)} paths"
        spliced = dataclasses.replace(spliced, notes=(*spliced.notes, note))
    return spliced, lambda: {**handlers(), **image_handlers()}


def platform_of(plan: Plan) -> str:
    """linux/arm64 when a pod of the plan asks for GB200 nodes (A4X's Arm hosts), else
    linux/amd64 (XPK: `docker_platform`, src/xpk/core/system_characteristics.py at
    367c838253be)."""
    for step in plan.steps:
        if isinstance(step, K8sApply) and "gb200" in repr(step.manifest):
            return "linux/arm64"
    return "linux/amd64"


def _dress(plan: Plan, image: str, flags: ImageFlags) -> Plan:
    """--docker-name names the container that runs the image; --docker-image-pull-secret adds
    its pod's imagePullSecrets (XPK's two flags, src/xpk/parser/workload.py)."""
    if not flags.container_name and not flags.pull_secret:
        return plan
    steps = []
    for step in plan.steps:
        if isinstance(step, K8sApply):
            manifest = _dress_pods(step.manifest, image, flags)
            step = dataclasses.replace(step, manifest=manifest)
        steps.append(step)
    return dataclasses.replace(plan, steps=tuple(steps))


def _dress_pods(value: Any, image: str, flags: ImageFlags) -> Any:
    if isinstance(value, list):
        return [_dress_pods(v, image, flags) for v in value]
    if not isinstance(value, Mapping):
        return value
    out = {k: _dress_pods(v, image, flags) for k, v in value.items()}
    containers = out.get("containers")
    if isinstance(containers, list) and any(
        isinstance(c, Mapping) and c.get("image") == image for c in containers
    ):
        if flags.container_name:
            out["containers"] = [
                {**c, "name": flags.container_name} if c.get("image") == image else c
                for c in containers
            ]
        if flags.pull_secret:
            out["imagePullSecrets"] = [{"name": flags.pull_secret}]
    return out


def _user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no passwd entry (a container): XPK says "unknown"
        return "unknown"
