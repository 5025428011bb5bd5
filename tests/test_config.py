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


def test_the_whole_chain_in_its_documented_order(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """flag > XCLI_* > CLOUDSDK_* > xcli file > gcloud file > GOOGLE_CLOUD_PROJECT."""
    monkeypatch.setenv("GOOGLE_CLOUD_PROJECT", "from-library")
    assert config.require("project", None).source == "environment GOOGLE_CLOUD_PROJECT"
    write_gcloud(isolated_home, "work", "from-gcloud", "europe-west4-a")
    assert config.require("project", None).value == "from-gcloud"
    config.write_user_config({"project": "from-file", "zone": "us-east5-a"})
    assert config.require("project", None).value == "from-file"
    monkeypatch.setenv("CLOUDSDK_CORE_PROJECT", "from-cloudsdk")
    monkeypatch.setenv("CLOUDSDK_COMPUTE_ZONE", "us-central1-a")
    found = config.require("zone", None)
    assert (found.value, found.source) == ("us-central1-a", "environment CLOUDSDK_COMPUTE_ZONE")
    assert config.require("project", None).value == "from-cloudsdk"
    monkeypatch.setenv("XCLI_PROJECT", "from-xcli-env")
    assert config.require("project", None).value == "from-xcli-env"
    assert config.require("project", "from-flag").source == "flag --project"


def test_active_configuration_name_from_the_environment(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_gcloud(isolated_home, "default", "default-proj", "us-east5-b", active=True)
    write_gcloud(isolated_home, "other", "other-proj", "us-east5-a", active=False)
    monkeypatch.setenv("CLOUDSDK_ACTIVE_CONFIG_NAME", "other")
    found = config.require("project", None)
    assert (found.value, found.source) == ("other-proj", "gcloud configuration 'other'")
    monkeypatch.setenv("CLOUDSDK_ACTIVE_CONFIG_NAME", "../../etc")
    with pytest.raises(ConfigError, match="not a configuration name"):
        config.require("project", None)


def test_an_empty_variable_is_unset_but_an_empty_flag_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("XCLI_PROJECT", "")
    monkeypatch.setenv("CLOUDSDK_CORE_PROJECT", "from-cloudsdk")
    assert config.require("project", None).value == "from-cloudsdk"
    with pytest.raises(ConfigError, match="--project is empty"):
        config.require("project", "")


@pytest.mark.parametrize("value", ["my-project\n", " my-project", "my-project\t", "my-\x07proj"])
def test_whitespace_and_control_characters_are_refused_not_trimmed(value: str) -> None:
    with pytest.raises(ConfigError) as err:
        config.check_flag("project", value)
    assert "\n" not in err.value.message and "whitespace" in err.value.hint


def test_corrupt_files_are_one_line_naming_the_file(isolated_home: Path) -> None:
    path = isolated_home / ".config" / "xcli" / "config.yaml"
    path.parent.mkdir(parents=True)
    path.write_text("project: [unclosed\nzone: {\n")
    with pytest.raises(ConfigError) as err:
        config.require("project", None)
    assert "\n" not in err.value.message and str(path) in err.value.message
    assert str(path) in err.value.hint
    path.write_bytes(b"project: caf\xe9\n")
    with pytest.raises(ConfigError, match=r"not UTF-8 text: byte 0xe9 at offset 12") as err:
        config.require("project", None)
    assert err.value.hint == f"fix or delete {path}"
    path.unlink()
    ini = isolated_home / ".config" / "gcloud" / "configurations" / "config_default"
    ini.parent.mkdir(parents=True)
    ini.write_text("project = p\n[core\n")
    with pytest.raises(ConfigError, match="cannot be parsed") as err:
        config.require("project", None)
    assert str(ini) in err.value.hint
