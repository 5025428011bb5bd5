"""The checks made before anything is read or sent, and the pure helpers of the gateway."""

from __future__ import annotations

import pytest

from xcli.errors import UserError
from xcli.gateways.google.rest import change_member as _change
from xcli.plan.storage import Storage
from xcli.plan.storage_steps import pick
from xcli.storage import checks


@pytest.mark.parametrize(
    "name",
    ["my-data", "a.b.c", "a_b-1", "abc", "x" * 63, ".".join(["a" * 63] * 3)],
)
def test_good_new_bucket_names(name: str) -> None:
    assert checks.bucket_name(name, new=True) == name


@pytest.mark.parametrize(
    "name",
    [
        "ab",
        "x" * 64,
        "My-Data",
        "-data",
        "data-",
        "goog-data",
        "my-google-data",
        "my-g00gle",
        "10.0.0.1",
        "a..b",
        "da ta",
        "",
        "d@ta",
        ".".join(["a" * 63] * 4),
    ],
)
def test_bad_new_bucket_names(name: str) -> None:
    with pytest.raises(UserError):
        checks.bucket_name(name, new=True)


def test_existing_bucket_only_needs_valid_characters() -> None:
    assert checks.bucket_name("gs://b/", new=False) == "b"
    with pytest.raises(UserError):
        checks.bucket_name("B", new=False)


@pytest.mark.parametrize(
    ("text", "gib"), [("1TB", 1024), ("2.5TiB", 2560), ("1024GB", 1024), ("100", 100)]
)
def test_sizes(text: str, gib: int) -> None:
    assert checks.size_gib(text) == gib


@pytest.mark.parametrize("text", ["", "big", "1PB", "0", "1.1GB", "-1TB"])
def test_bad_sizes(text: str) -> None:
    with pytest.raises(UserError):
        checks.size_gib(text)


def test_mount_points_nest_only_apart() -> None:
    there = [Storage(name="a", type="gcsfuse", source="b", mount_point="/data")]
    assert checks.mount_point("/data2", "b", there) == "/data2"
    assert checks.mount_point("/data/", "a", there) == "/data"  # its own record
    for path in ("/data", "/data/x", "/", "/data/../data", "relative"):
        with pytest.raises(UserError):
            checks.mount_point(path, "b", there)


def test_iam_change_keeps_other_members_and_conditions() -> None:
    conditional = {"role": "r", "members": ["m"], "condition": {"expression": "true"}}
    bindings, changed = _change([conditional], "r", "m", "add")
    assert changed and bindings == [conditional, {"role": "r", "members": ["m"]}]
    assert _change(bindings, "r", "m", "add") == (bindings, False)
    back, changed = _change(bindings, "r", "m", "remove")
    assert changed and back == [conditional]
    two = [{"role": "r", "members": ["a", "m"]}]
    assert _change(two, "r", "m", "remove") == ([{"role": "r", "members": ["a"]}], True)


def test_pick() -> None:
    answer = {"name": "projects/42", "networks": [{"ipAddresses": ["10.0.0.2"]}], "ap": ["a", "b"]}
    assert pick(answer, "name@last") == "42"
    assert pick(answer, "networks.0.ipAddresses.0") == "10.0.0.2"
    assert pick(answer, "ap") == "a,b"
    assert pick(answer, "networks.1.ipAddresses") is None


@pytest.mark.parametrize(
    "path", ["/data/*", "/data/keep me", "/data/[ab]", "/d\nx", "/d\t", "/{a,b}"]
)
def test_mount_points_without_glob_or_whitespace(path: str) -> None:
    """Issue 26: such a mount point once let the symlink fallback delete files outside it."""
    with pytest.raises(UserError, match=r"glob characters|whitespace or control") as info:
        checks.mount_point(path, "b", [])
    assert "\n" not in info.value.message and info.value.hint
