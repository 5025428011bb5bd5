"""One rule per kind of value (issue 37): Kubernetes names, gs:// locations, config keys,
XCLI_IMAGE_CACHE, accelerator names."""

from __future__ import annotations

from pathlib import Path

import pytest

from xcli import config, paths
from xcli.catalog import lookup
from xcli.errors import UserError
from xcli.plan.storage_types.gcsfuse import gcs_location
from xcli.spec import k8s_name


@pytest.mark.parametrize(
    ("value", "form", "ok"),
    [
        ("trainer", "label", True),
        ("my trainer", "label", False),
        ("Team-A", "label", False),
        ("a" * 63, "label", True),
        ("a" * 64, "label", False),
        ("reg.cred-1", "subdomain", True),
        ("ns/secret", "subdomain", False),
        ("a..b", "subdomain", False),
        ("a.b", "label", False),
    ],
)
def test_kubernetes_names(value: str, form: str, ok: bool) -> None:
    if ok:
        assert k8s_name(value, "--x", form) == value
    else:
        with pytest.raises(UserError, match="is not a Kubernetes name"):
            k8s_name(value, "--x", form)


@pytest.mark.parametrize(
    ("value", "why"),
    [
        ("gs://my..bucket/x", "dot-separated part that is empty"),
        ("gs://192.168.1.1/x", "may not be an IP address"),
        ("gs://" + "a" * 100 + "/x", "must be 3-63 characters long"),
        ("gs://my-bucket/../x", "the path has a '.' or '..' part"),
        ("gs://my-bucket/a/./x", "the path has a '.' or '..' part"),
        ("gs://goog-x/x", "may not start with 'goog'"),
        ("gs://b/x", "must be 3-63 characters long"),
        ("s3://my-bucket/x", "is not a gs:// location"),
    ],
)
def test_one_bucket_rule_for_every_gs_flag(value: str, why: str) -> None:
    with pytest.raises(UserError) as info:
        gcs_location(value, "--pathways-gcs-location")
    assert why in info.value.message


def test_a_good_location_keeps_its_path() -> None:
    assert gcs_location("gs://my-bucket/pw/", "--f") == "gs://my-bucket/pw"
    assert gcs_location("gs://my.bucket.example/pw", "--f") == "gs://my.bucket.example/pw"


def test_a_key_given_twice_in_config_yaml_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_text("project: a-proj-1\nzone: us-east5-b\nproject: b-proj-2\n")
    with pytest.raises(UserError) as info:
        config.read_user_config(path)
    assert "(line 3, column 1): the key 'project' is given twice" in info.value.message
    path.write_text("project: a-proj-1\nzone: us-east5-b\n")
    assert config.read_user_config(path) == {"project": "a-proj-1", "zone": "us-east5-b"}


def test_a_relative_image_cache_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XCLI_IMAGE_CACHE", "cache")
    with pytest.raises(UserError, match="XCLI_IMAGE_CACHE 'cache' is a relative path"):
        paths.image_cache_dir()
    monkeypatch.setenv("XCLI_IMAGE_CACHE", "/var/cache/x")
    assert paths.image_cache_dir() == Path("/var/cache/x")


@pytest.mark.parametrize("name", ["v6e-\uff18", "v6e-\u0668", "h100-80gb-\uff18"])
def test_digits_other_than_ascii_in_accelerator_names_are_refused(name: str) -> None:
    with pytest.raises(UserError, match="has characters other than ASCII"):
        lookup(name)
