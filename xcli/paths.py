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
    """$XCLI_HOME, else ~/.local/state/xcli: local clusters, logs, known_hosts."""
    env = os.environ.get("XCLI_HOME")
    return Path(env) if env else Path.home() / ".local" / "state" / "xcli"


def gcloud_dir() -> Path:
    env = os.environ.get("CLOUDSDK_CONFIG")
    return Path(env) if env else Path.home() / ".config" / "gcloud"


def image_cache_dir() -> Path:
    """$XCLI_IMAGE_CACHE, else $XDG_CACHE_HOME/xcli/images (~/.cache/xcli/images): the
    compressed layers `workload create --script-dir` built, so an unchanged folder is neither
    read nor compressed again."""
    env = os.environ.get("XCLI_IMAGE_CACHE")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "xcli" / "images"
