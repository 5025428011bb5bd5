"""Settings and where they come from.

A setting (project, zone, ...) is taken from, in order: the command-line flag, the environment
variable XCLI_<KEY>, xcli's own config file (`xcli config set`), then the active gcloud
configuration file. gcloud itself is never run: its INI file is read.
"""

from __future__ import annotations

import configparser
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from xcli import paths
from xcli.errors import ConfigError

# key -> (gcloud section, gcloud option, validator pattern, what it is)
KEYS: dict[str, tuple[str, str, str, str]] = {
    "project": (
        "core",
        "project",
        r"^[a-z][a-z0-9-]{4,28}[a-z0-9]$|^[a-z0-9.-]+:[a-z][a-z0-9-]+$",
        "a Google Cloud project id (6-30 lowercase letters, digits, hyphens)",
    ),
    "zone": ("compute", "zone", r"^[a-z]+-[a-z]+[0-9]+-[a-z]$", "a zone such as us-east5-b"),
}


@dataclass(frozen=True)
class Setting:
    key: str
    value: str
    source: str  # "flag", "env XCLI_PROJECT", "config file", "gcloud configuration <name>"


def read_user_config(path: Path | None = None) -> dict[str, Any]:
    path = path or paths.config_file()
    if not path.is_file():
        return {}
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as exc:
        raise ConfigError(
            f"{path} is not valid YAML: {exc}", hint="fix or delete the file"
        ) from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path} must hold a mapping of keys to values", hint="fix or delete it")
    return data


def write_user_config(data: Mapping[str, Any], path: Path | None = None) -> Path:
    path = path or paths.config_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(dict(sorted(data.items())), sort_keys=False), encoding="utf-8")
    return path


def read_gcloud_config(base: Path | None = None) -> tuple[str, dict[str, str]]:
    """(configuration name, {key: value}) of gcloud's active configuration; ({}) if none."""
    base = base or paths.gcloud_dir()
    name = os.environ.get("CLOUDSDK_ACTIVE_CONFIG_NAME", "")
    if not name:
        active = base / "active_config"
        name = active.read_text(encoding="utf-8").strip() if active.is_file() else "default"
    ini = base / "configurations" / f"config_{name}"
    if not ini.is_file():
        return name, {}
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read(ini, encoding="utf-8")
    except configparser.Error:
        return name, {}
    found = {}
    for key, (section, option, _, _) in KEYS.items():
        if parser.has_option(section, option):
            found[key] = parser.get(section, option).strip()
    return name, found


def check_value(key: str, value: str) -> str:
    if key not in KEYS:
        raise ConfigError(f"unknown setting {key!r}", hint=f"settings are: {', '.join(KEYS)}")
    pattern, what = KEYS[key][2], KEYS[key][3]
    if not re.match(pattern, value):
        raise ConfigError(f"{key} {value!r} is not {what}", hint=f"check the value of {key}")
    return value


def resolve(key: str, flag: str | None) -> Setting | None:
    """The setting from the first source that has it, validated; None if no source has it."""
    env = f"XCLI_{key.upper()}"
    candidates: list[tuple[str | None, str]] = [
        (flag, "flag --" + key),
        (os.environ.get(env), "environment " + env),
        (_str(read_user_config().get(key)), "config file " + str(paths.config_file())),
    ]
    for value, source in candidates:
        if value:
            return Setting(key, check_value(key, value), source)
    name, gcloud = read_gcloud_config()
    if gcloud.get(key):
        return Setting(key, check_value(key, gcloud[key]), f"gcloud configuration {name!r}")
    return None


def require(key: str, flag: str | None) -> Setting:
    setting = resolve(key, flag)
    if setting is None:
        example = "my-project" if key == "project" else "us-east5-b"
        raise ConfigError(
            f"no {key} set",
            hint=(
                f"pass --{key} {example}, set XCLI_{key.upper()}={example}, run "
                f"`xcli config set {key} {example}`, or set {KEYS[key][0]}/{KEYS[key][1]} in "
                "your active gcloud configuration"
            ),
        )
    return setting


def region_of(zone: str) -> str:
    """us-east5-b -> us-east5."""
    return zone.rsplit("-", 1)[0]


def _str(value: Any) -> str | None:
    return None if value is None else str(value)
