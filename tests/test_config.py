"""Setting precedence: flag, then XCLI_<KEY>, then xcli's config file, then gcloud's file."""

from __future__ import annotations

from pathlib import Path

import pytest

from xcli import config
from xcli.errors import ConfigError


def write_gcloud(home: Path, name: str, project: str, zone: str, active: bool = True) -> None:
    base = home / ".config" / "gcloud"
    (base / "configurations").mkdir(parents=True, exist_ok=True)
    (base / "configurations" / f"config_{name}").write_text(
        f"[core]\naccount = me@example.com\nproject = {project}\n\n[compute]\nzone = {zone}\n"
    )
    if active:
        (base / "active_config").write_text(name + "\n")


def test_each_source_in_order(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert config.resolve("project", None) is None
    write_gcloud(isolated_home, "work", "from-gcloud", "europe-west4-a")
    found = config.resolve("project", None)
    assert found is not None and (found.value, found.source) == (
        "from-gcloud",
        "gcloud configuration 'work'",
    )
    config.write_user_config({"project": "from-file"})
    assert config.require("project", None).value == "from-file"
    monkeypatch.setenv("XCLI_PROJECT", "from-env")
    assert config.require("project", None).value == "from-env"
    flagged = config.require("project", "from-flag")
    assert (flagged.value, flagged.source) == ("from-flag", "flag --project")
    assert config.require("zone", None).value == "europe-west4-a"


def test_inactive_gcloud_configuration_is_ignored(isolated_home: Path) -> None:
    write_gcloud(isolated_home, "default", "default-proj", "us-east5-b", active=False)
    write_gcloud(isolated_home, "other", "other-proj", "us-east5-a", active=True)
    assert config.require("project", None).value == "other-proj"


def test_missing_setting_names_all_four_ways() -> None:
    with pytest.raises(ConfigError) as err:
        config.require("zone", None)
    hint = err.value.hint
    for way in ("--zone", "XCLI_ZONE", "xcli config set zone", "gcloud configuration"):
        assert way in hint


@pytest.mark.parametrize(
    ("key", "value"),
    [("zone", "us-east5"), ("zone", "US-EAST5-B"), ("project", "P!"), ("project", "ab")],
)
def test_malformed_values_are_refused(key: str, value: str) -> None:
    with pytest.raises(ConfigError, match=key):
        config.require(key, value)


def test_broken_config_file(isolated_home: Path) -> None:
    path = isolated_home / ".config" / "xcli" / "config.yaml"
    path.parent.mkdir(parents=True)
    path.write_text("project: [unclosed\n")
    with pytest.raises(ConfigError, match="not valid YAML"):
        config.resolve("project", None)


def test_region_is_derived_from_zone() -> None:
    assert config.region_of("us-east5-b") == "us-east5"
