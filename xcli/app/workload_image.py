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
from typing import TYPE_CHECKING, Any

from xcli.errors import UserError
from xcli.image import build as image_build
from xcli.plan.model import Plan
from xcli.plan.steps import K8sApply
from xcli.user_files import expand_home

if TYPE_CHECKING:
    from xcli.app.deps import Deps

Handlers = Callable[[], Mapping[str, Any]]


@dataclass(frozen=True)
class ImageFlags:
    base: str | None  # --base-docker-image (None: no build; --docker-name or the secret only)
    script_dir: Path  # --script-dir
    repository: str | None = None  # --image-repository (default: Artifact Registry, region)
    container_name: str | None = None  # --docker-name
    pull_secret: str | None = None  # --docker-image-pull-secret
    verbose: bool = False  # -v: say each path .dockerignore leaves out
    include: tuple[str, ...] = ()  # --script-include: secret or VCS paths packed on purpose
    # VM-style clusters: no image; the folder is copied to every worker (app/workload_sync.py)
    copy_to_vms: bool = False
    # no --base-docker-image given: XPK's default base, python:3.10 (the plan's title says so)
    default_base: bool = False


def say_withheld(withheld: tuple[tuple[str, str], ...], say: Callable[[str], None]) -> None:
    """Name, always, each secret or VCS path left out by default (the plan lists them too)."""
    if withheld:
        say(
            f"left out by default (secret, version-control or virtual-environment paths, "
            f"{len(withheld)}):"
        )
    for path, why in withheld:
        say(f"  {path}: {why} (pack it with --script-include {path})")


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


def request_for(
    flags: ImageFlags, repository: str, platform: str, node_project: str | None = None
) -> image_build.BuildRequest:
    return image_build.BuildRequest(
        expand_home(flags.script_dir, "--script-dir"),
        flags.base or image_build.DEFAULT_BASE,
        platform,
        repository,
        image_build.image_name(_user()),
        node_project=node_project,
        include=flags.include,
    )


def image_text(request: image_build.BuildRequest) -> str:
    """What the workload's planner is handed: the pushed image by digest, symbolically."""
    return f"{image_build.target(request).repository}@${{{image_build.BUILD_STEP}.digest}}"


def planned(flags: ImageFlags, project: Callable[[], str], zone: Callable[[], str]) -> str:
    """Check the flags (no cluster, no folder content read yet) and give the image text the
    workload's planner runs: HOST/NAME@${build.digest}."""
    from xcli.image import reference

    reference.parse(flags.base or "", what="--base-docker-image")
    folder = expand_home(flags.script_dir, "--script-dir")
    if not folder.is_dir():
        raise UserError(
            f"--script-dir {flags.script_dir} is not a folder",
            hint="pass the folder whose files the workload runs (default: the current one)",
        )
    return image_text(request_for(flags, destination(flags, project, zone), "linux/amd64"))


def finish(
    flags: ImageFlags,
    image: str,
    plan: Plan,
    handlers: Handlers,
    deps: Deps,
    node_project: Callable[[], str] | None = None,
) -> tuple[Plan, Handlers]:
    """The workload's plan with the container dressed (--docker-name, the pull secret) and,
    when an image is built, the build in front; the handlers of both."""
    from xcli import paths
    from xcli.image.layers import Store
    from xcli.image.splice import splice

    plan = _dress(plan, image, flags)
    if flags.base is None:
        return plan, handlers
    repository = image.split("@", 1)[0].rsplit("/", 1)[0]
    # the nodes' project is asked for only when the image goes to Artifact Registry, whose
    # repository then grants those nodes' service account the reader role (image/steps.py)
    pulls = (
        node_project() if node_project and image_build.in_artifact_registry(repository) else None
    )
    request = request_for(flags, repository, platform_of(plan), pulls)
    local = None
    if deps.local_images is not None and image_build.asks_engine(request.base):
        local = deps.local_images(request.base)
    built = image_build.prepare(
        request,
        Store(paths.image_cache_dir()),
        _every(2.0, deps.say),
        local=local,
        packing=lambda: deps.say(f"packing {request.script_dir} for {request.platform}"),
    )
    packed = sum(x.size for x in built.layers)
    deps.say(
        f"packed {len(built.context.entries)} paths ({built.context.total_bytes / 1e6:.1f} MB) "
        f"into {len(built.layers)} layer(s) ({packed / 1e6:.1f} MB compressed)"
    )
    say_withheld(built.context.withheld, deps.say)
    if built.context.excluded:
        deps.say(f"left out by .dockerignore: {len(built.context.excluded)} paths (-v lists them)")
    for path in built.context.excluded if flags.verbose else ():
        deps.say(f"  {path}")
    image_handlers = deps.image_handlers
    if image_handlers is None:
        from xcli.errors import InternalError

        raise InternalError("no image handlers in the dependencies")
    return _titled(splice(built, plan), flags, request), lambda: {
        **handlers(),
        **image_handlers(),
    }


def _titled(plan: Plan, flags: ImageFlags, request: image_build.BuildRequest) -> Plan:
    """The plan's first line says where the image comes from: which folder on which base."""
    folder = request.script_dir.name or str(request.script_dir)
    said = f"{folder}/ layered onto {request.base}"
    if flags.default_base:
        said += " (XPK's default: no --docker-image or --base-docker-image given)"
    return dataclasses.replace(plan, title=f"{plan.title}, its image built from {said}")


def dress_manifests(flags: ImageFlags, image: str, manifests: tuple[Any, ...]) -> tuple[Any, ...]:
    """The manifests --output-manifest-file writes, with the same container name and pull
    secret as the plan's."""
    return tuple(_dress_pods(m, image, flags) for m in manifests)


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


def _every(seconds: float, say: Callable[[str], None]) -> Callable[[int], None]:
    """A packing progress callback that says the bytes read so far, at most every `seconds`
    (packing a large folder takes a while; an unchanged one reads nothing and says nothing)."""
    import threading
    import time

    lock, state = threading.Lock(), {"bytes": 0, "said": time.monotonic()}

    def progress(n: int) -> None:
        with lock:
            state["bytes"] += n
            now = time.monotonic()
            if now - state["said"] >= seconds:
                state["said"] = now
                say(f"  packed {state['bytes'] / 1e6:.0f} MB so far")

    return progress


def _user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no passwd entry (a container): XPK says "unknown"
        return "unknown"
