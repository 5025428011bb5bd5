"""The image flags of `xcli workload create` (XPK's names; docs/workload.md, "Your code,
without Docker")."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from xcli.errors import InputErrors, UserError
from xcli.spec import k8s_name

if TYPE_CHECKING:
    from xcli.app.workload_image import ImageFlags

# XPK's default base (AI-Hypercomputer/xpk at 367c838253be, src/xpk/core/docker_image.py)
DEFAULT_BASE = "python:3.10"

OPTIONS: list[Callable[[Any], Any]] = [
    click.option(
        "--base-docker-image",
        "base_image",
        metavar="IMG",
        help=f"Add --script-dir to IMG (default {DEFAULT_BASE}) as layers under /app, push the "
        "result without Docker and run it by digest. Excludes --docker-image.",
    ),
    click.option(
        "--script-dir",
        type=click.Path(path_type=Path),
        metavar="DIR",
        help="The folder added to --base-docker-image (default: the current folder); its "
        ".dockerignore is honoured, -v lists what it leaves out.",
    ),
    click.option(
        "--image-repository",
        metavar="HOST/PATH",
        help="Where built images go (default: REGION-docker.pkg.dev/PROJECT/xcli, the "
        "cluster's region; created when missing).",
    ),
    click.option(
        "-v",
        "--verbose",
        "image_verbose",
        is_flag=True,
        help="With --script-dir: list each path the folder's .dockerignore leaves out.",
    ),
    click.option(
        "--docker-name",
        metavar="NAME",
        help="Name of the container that runs the image (default: jax-tpu).",
    ),
    click.option(
        "--docker-image-pull-secret",
        "pull_secret",
        metavar="SECRET",
        help="Kubernetes Secret the pods pull the image with (a private registry).",
    ),
]


def _refuse_dropped(
    provider: str,
    building: bool,
    builds_in_a_pod: bool,
    repository: str | None,
    name: str | None,
    secret: str | None,
) -> None:
    """The image flags that would be dropped without a word (issue 37), all in one error."""
    problems: list[tuple[str, str]] = []
    if repository is not None and not building:
        problems.append(
            (
                "--image-repository is where a built image is pushed, and nothing is built",
                "build with --base-docker-image and --script-dir instead of --docker-image, "
                "or drop --image-repository",
            )
        )
    pod_only = (("--docker-name", name), ("--docker-image-pull-secret", secret))
    for flag, value in pod_only if not builds_in_a_pod else ():
        if value is not None:
            problems.append(
                (
                    f"{flag} applies to a Kubernetes pod's container; --provider {provider} "
                    "runs none",
                    f"drop {flag}",
                )
            )
    names = (("--docker-name", name, "label"), ("--docker-image-pull-secret", secret, "subdomain"))
    for flag, value, form in names if builds_in_a_pod else ():
        try:
            k8s_name(value, flag, form) if value is not None else None
        except UserError as exc:
            problems.append((exc.message, exc.hint))
    if problems:
        raise InputErrors(problems)


def image_flags(
    flags: dict[str, Any], builds_in_a_pod: bool, plain_process: bool = True
) -> ImageFlags | None:
    """Take the image flags out of `flags`; None when no image is built."""
    from xcli.app.workload_image import ImageFlags

    base, script_dir = flags.pop("base_image"), flags.pop("script_dir")
    repository = flags.pop("image_repository")
    name, secret = flags.pop("docker_name"), flags.pop("pull_secret")
    verbose = bool(flags.pop("image_verbose"))
    building = base is not None or script_dir is not None
    if building and flags.get("image"):
        raise UserError(
            "--docker-image excludes --base-docker-image and --script-dir",
            hint="pass a ready image with --docker-image, or a base and a folder to build",
        )
    if base is not None and not builds_in_a_pod:
        raise UserError(
            f"--provider {flags['provider']} runs the command on the VMs themselves: there is "
            "no container to build an image for",
            hint="leave out --base-docker-image: --script-dir DIR alone copies DIR to every "
            "worker and runs the command in it",
        )
    _refuse_dropped(flags["provider"], building, builds_in_a_pod, repository, name, secret)
    if verbose and script_dir is None and not building:
        raise UserError(
            "--verbose lists what .dockerignore leaves out of --script-dir, which is not given",
            hint="add --script-dir DIR, or drop --verbose",
        )
    if not builds_in_a_pod:
        if script_dir is None:
            return None
        if not plain_process:
            raise UserError(
                f"--provider {flags['provider']} runs the command in a container on each VM, "
                "where a copied --script-dir is not mounted",
                hint="bake the code into --docker-image, or copy it with `xcli scp` and run "
                "it from the container's mounts",
            )
        return ImageFlags(base=None, script_dir=script_dir, verbose=verbose, copy_to_vms=True)
    if not building and repository is None and name is None and secret is None:
        return None
    return ImageFlags(
        base=base or DEFAULT_BASE if building else None,
        script_dir=script_dir or Path.cwd(),
        repository=repository,
        container_name=name,
        pull_secret=secret,
        verbose=verbose,
    )
