"""Where xcli keeps files on this machine; an environment variable can move each location."""

from __future__ import annotations

import os
from pathlib import Path


def config_dir() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "xcli"


def config_file() -> Path:
    return config_dir() / "config.yaml"


def state_dir() -> Path:
    """$XCLI_HOME, else ~/.local/state/xcli: local clusters, logs, known_hosts.

    XCLI_HOME must be absolute, as the XDG Base Directory specification asks of its variables:
    a relative one would name another folder in every process that changes directory (the local
    supervisor, worker shells)."""
    env = os.environ.get("XCLI_HOME")
    if env and not os.path.isabs(env):
        from xcli.errors import UserError

        raise UserError(
            f"XCLI_HOME {env[:80]!r} is a relative path",
            hint=f"set it to an absolute path, e.g. XCLI_HOME=$PWD/{env[:40]}",
        )
    return Path(env) if env else Path.home() / ".local" / "state" / "xcli"


def gcloud_dir() -> Path:
    env = os.environ.get("CLOUDSDK_CONFIG")
    return Path(env) if env else Path.home() / ".config" / "gcloud"


def image_cache_dir() -> Path:
    """$XCLI_IMAGE_CACHE, else $XDG_CACHE_HOME/xcli/images (~/.cache/xcli/images): the
    compressed layers `workload create --script-dir` built, so an unchanged folder is neither
    read nor compressed again."""
    env = os.environ.get("XCLI_IMAGE_CACHE")
    if env and not os.path.isabs(env):  # as XCLI_HOME: a relative one writes into the cwd
        from xcli.errors import UserError

        raise UserError(
            f"XCLI_IMAGE_CACHE {env[:80]!r} is a relative path",
            hint=f"set it to an absolute path, e.g. XCLI_IMAGE_CACHE=$PWD/{env[:40]}",
        )
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "xcli" / "images"
