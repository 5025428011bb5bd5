"""Settings and where they come from.

A setting (project, zone) is taken from the first of these sources that has it:

1. the command-line flag (`--project`, `--zone`);
2. xcli's environment variable, `XCLI_PROJECT` / `XCLI_ZONE`;
3. gcloud's environment variable, `CLOUDSDK_CORE_PROJECT` / `CLOUDSDK_COMPUTE_ZONE`;
4. xcli's own config file (`xcli config set`);
5. the active gcloud configuration file: `$CLOUDSDK_CONFIG` (default ~/.config/gcloud), the
   configuration named by `CLOUDSDK_ACTIVE_CONFIG_NAME`, else by its `active_config` file;
6. project only: `GOOGLE_CLOUD_PROJECT`, which Google's client libraries read.

Why this order: gcloud documents that flags override properties, and that any property can be
set with a `CLOUDSDK_<SECTION>_<NAME>` variable, read before the active configuration file
(https://cloud.google.com/sdk/docs/properties), so 1, 3 and 5 keep gcloud's own order; xcli's
settings sit just above gcloud's at the same level (2 before 3, 4 before 5), as a tool's own
choice is more specific than a machine-wide one. `GOOGLE_CLOUD_PROJECT` comes last because it
is a client-library default, often set for another program (gcloud itself ignores it).
gcloud itself is never run: its INI file is read. An empty variable counts as unset; a value
with whitespace or control characters is refused, never trimmed.
"""

from __future__ import annotations

import configparser
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from xcli import paths
from xcli.errors import ConfigError
from xcli.state_files import locked, write_private
from xcli.user_files import MIB, decode, read_bytes

# key -> (gcloud section, gcloud option, validator pattern, what it is)
# Project IDs: https://cloud.google.com/resource-manager/docs/creating-managing-projects
# (6-30 characters: lowercase letters, digits, hyphens; a letter first; no hyphen last), plus
# the older domain-scoped form example.com:my-project. Zones: region-zone, e.g. us-east5-b.
KEYS: dict[str, tuple[str, str, str, str]] = {
    "project": (
        "core",
        "project",
        r"[a-z][a-z0-9-]{4,28}[a-z0-9]|[a-z0-9.-]+:[a-z][a-z0-9-]+",
        "a Google Cloud project id (6-30 lowercase letters, digits, hyphens)",
    ),
    "zone": ("compute", "zone", r"[a-z]+-[a-z]+[0-9]+-[a-z]", "a zone such as us-east5-b"),
}
GCLOUD_ENV = {"project": "CLOUDSDK_CORE_PROJECT", "zone": "CLOUDSDK_COMPUTE_ZONE"}
LIBRARY_ENV = {"project": "GOOGLE_CLOUD_PROJECT"}
# gcloud: "names must start with a lowercase letter and contain only lowercase letters,
# digits and hyphens" (https://cloud.google.com/sdk/gcloud/reference/config/configurations/create)
_CONFIG_NAME = re.compile(r"[a-z][-a-z0-9]*")
FILE_LIMIT = MIB  # a settings file is a few lines; anything larger is not one


@dataclass(frozen=True)
class Setting:
    key: str
    value: str
    source: str  # "flag --project", "environment XCLI_PROJECT", "config file PATH", ...


def _unique_keys_loader(yaml: Any) -> Any:
    """PyYAML's SafeLoader that refuses a key given twice in a mapping: safe_load keeps the
    last one silently, and YAML 1.2 says keys of a mapping are unique (spec section 3.2.1.1)."""

    class UniqueKeys(yaml.SafeLoader):  # type: ignore[misc]
        pass

    def mapping(loader: Any, node: Any) -> dict[Any, Any]:
        loader.flatten_mapping(node)
        seen: set[Any] = set()
        for key_node, _ in node.value:
            key = loader.construct_object(key_node, deep=True)
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"the key {key!r} is given twice", key_node.start_mark
                )
            seen.add(key)
        return dict(loader.construct_pairs(node, deep=True))

    UniqueKeys.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, mapping)
    return UniqueKeys


def read_user_config(path: Path | None = None) -> dict[str, Any]:
    path = path or paths.config_file()
    if not os.path.lexists(path):
        return {}
    text = _read_settings_file(path, "config file", f"fix or delete {path}")
    import yaml  # only when a config file exists: a plain command pays nothing for it

    try:
        data = yaml.load(text, Loader=_unique_keys_loader(yaml)) or {}  # a SafeLoader
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark else ""
        problem = getattr(exc, "problem", None) or "cannot be parsed"
        raise ConfigError(
            f"config file {path} is not valid YAML{where}: {problem}",
            hint=f"fix or delete {path}, then use `xcli config set`",
        ) from None
    if not isinstance(data, dict):
        raise ConfigError(
            f"config file {path} must hold a mapping of keys to values",
            hint=f"fix or delete {path}",
        )
    return data


def _read_settings_file(path: Path, what: str, fix: str) -> str:
    """A settings file's text; any problem is one ConfigError whose hint names the file."""
    from xcli.errors import UserError

    try:
        return decode(read_bytes(path, what, FILE_LIMIT), f"{what} {path}")
    except UserError as exc:
        raise ConfigError(exc.message, hint=fix) from None


def write_user_config(data: Mapping[str, Any], path: Path | None = None) -> Path:
    """Replace the config file whole (never in place: a failed write keeps the old one), 0600."""
    from xcli.user_files import check_writable_folder

    path = path or paths.config_file()
    check_writable_folder(path.parent, "config folder")
    import yaml

    return write_private(path, yaml.safe_dump(dict(sorted(data.items())), sort_keys=False))


def set_user_value(key: str, value: str, path: Path | None = None) -> Path:
    """`xcli config set`: one read-modify-write of the config file under its lock."""
    from xcli.user_files import check_writable_folder

    path = path or paths.config_file()
    check_writable_folder(path.parent, "config folder")
    with locked(path):
        data = read_user_config(path)
        data[key] = check_value(key, value)
        return write_user_config(data, path)


def active_gcloud_configuration(base: Path | None = None) -> tuple[str, Path]:
    """(name, file) of gcloud's active configuration."""
    base = base or paths.gcloud_dir()
    name = os.environ.get("CLOUDSDK_ACTIVE_CONFIG_NAME", "")
    source = "CLOUDSDK_ACTIVE_CONFIG_NAME"
    if not name:
        active = base / "active_config"
        source = str(active)
        name = "default"
        if os.path.lexists(active):
            fix = f"fix {active} (`gcloud config configurations activate NAME` rewrites it)"
            name = _read_settings_file(active, "gcloud file", fix).strip() or "default"
    if not _CONFIG_NAME.fullmatch(name):
        raise ConfigError(
            f"gcloud configuration name {name!r} (from {source}) is not a configuration name",
            hint="names are lowercase letters, digits and hyphens; "
            "`gcloud config configurations list` shows yours",
        )
    return name, base / "configurations" / f"config_{name}"


def read_gcloud_config(base: Path | None = None) -> tuple[str, dict[str, str]]:
    """(configuration name, {key: value}) of gcloud's active configuration; {} if none."""
    name, ini = active_gcloud_configuration(base)
    if not os.path.lexists(ini):
        return name, {}
    text = _read_settings_file(ini, "gcloud configuration", f"fix or delete {ini}")
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(text, source=str(ini))
    except configparser.Error as exc:
        first = " ".join(str(exc).split())
        raise ConfigError(
            f"gcloud configuration {ini} cannot be parsed: {first}",
            hint=f"fix {ini} (or run `gcloud config configurations activate` with a good one)",
        ) from None
    found = {}
    for key, (section, option, _, _) in KEYS.items():
        if parser.has_option(section, option):
            found[key] = parser.get(section, option)
    return name, found


def check_value(key: str, value: str, source: str = "") -> str:
    """The value, if it is a valid `key`; whitespace or control characters are refused."""
    if key not in KEYS:
        raise ConfigError(f"unknown setting {key!r}", hint=f"settings are: {', '.join(KEYS)}")
    pattern, what = KEYS[key][2], KEYS[key][3]
    if not re.fullmatch(pattern, value):
        origin = f" (from {source})" if source else ""
        if not value:
            hint = f"give a value, or leave {key} out to use the next source"
        elif value != value.strip() or not value.isprintable():
            hint = "remove the whitespace or control characters (a trailing newline?)"
        else:
            hint = f"check the value of {key}"
        raise ConfigError(f"{key} {value!r}{origin} is not {what}", hint=hint)
    return value


def sources(key: str, flag: str | None) -> list[tuple[str, Callable[[], str | None]]]:
    """Where `key` may come from, first wins: (source description, reader)."""
    found: list[tuple[str, Callable[[], str | None]]] = [
        ("flag --" + key, lambda: flag),
        (f"environment XCLI_{key.upper()}", lambda: os.environ.get(f"XCLI_{key.upper()}")),
        (f"environment {GCLOUD_ENV[key]}", lambda: os.environ.get(GCLOUD_ENV[key])),
        (
            "config file " + str(paths.config_file()),
            lambda: _str(read_user_config().get(key)),
        ),
        ("gcloud configuration", lambda: read_gcloud_config()[1].get(key)),
    ]
    if key in LIBRARY_ENV:
        found.append((f"environment {LIBRARY_ENV[key]}", lambda: os.environ.get(LIBRARY_ENV[key])))
    return found


def check_flag(key: str, flag: str | None) -> str | None:
    """A --project/--zone flag, checked as soon as it is parsed (None: not given)."""
    if flag is None:
        return None
    if not flag:
        raise ConfigError(
            f"--{key} is empty", hint=f"give a {key}, or leave --{key} out to use the default"
        )
    return check_value(key, flag, f"--{key}")


def resolve(key: str, flag: str | None) -> Setting | None:
    """The setting from the first source that has it, validated; None if no source has it.

    An empty flag is refused (it would silently fall through to another source); an empty
    environment variable counts as unset, as in most shells' tools.
    """
    check_flag(key, flag)
    for source, read in sources(key, flag):
        value = read()
        if value:
            if source == "gcloud configuration":
                source = f"gcloud configuration {active_gcloud_configuration()[0]!r}"
            return Setting(key, check_value(key, value, source), source)
    return None


def require(key: str, flag: str | None) -> Setting:
    setting = resolve(key, flag)
    if setting is None:
        example = "my-project" if key == "project" else "us-east5-b"
        raise ConfigError(
            f"no {key} set",
            hint=(
                f"pass --{key} {example}, set XCLI_{key.upper()}={example} or "
                f"{GCLOUD_ENV[key]}, run `xcli config set {key} {example}`, or set "
                f"{KEYS[key][0]}/{KEYS[key][1]} in your active gcloud configuration"
            ),
        )
    return setting


def region_of(zone: str) -> str:
    """us-east5-b -> us-east5."""
    return zone.rsplit("-", 1)[0]


def _str(value: Any) -> str | None:
    return None if value is None else str(value)
