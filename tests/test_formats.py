"""xcli/formats.py: documented forms pass, everything else is one UserError."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from xcli import formats
from xcli.errors import UserError

GOOD: list[tuple[Callable[[str], str], str]] = [
    (formats.network, "default"),
    (formats.network, "projects/my-host-proj/global/networks/shared-vpc"),
    (formats.subnetwork, "sub-1"),
    (formats.subnetwork, "projects/my-host-proj/regions/us-east5/subnetworks/sub-1"),
    (formats.machine_type, "e2-standard-8"),
    (formats.gke_version, "1.34"),
    (formats.gke_version, "1.34.1"),
    (formats.gke_version, "1.34.1-gke.1829001"),
    (formats.gke_version, "latest"),
    (formats.gke_version, "-"),
    (formats.location, "us-east5"),
    (formats.location, "us-east5-b"),
    (formats.service_account, "trainer@my-proj.iam.gserviceaccount.com"),
    (formats.service_account, "123456789-compute@developer.gserviceaccount.com"),
    (formats.scope, "https://www.googleapis.com/auth/cloud-platform"),
    (formats.scope, "https://www.googleapis.com/auth/devstorage.read_only"),
    (formats.runtime_version, "tpu-ubuntu2204-base"),
    (formats.runtime_version, "v2-alpha-tpuv6e"),
    (formats.runtime_version, "tpu-vm-tf-2.16.1-pjrt"),
]

BAD: list[tuple[Callable[[str], str], str]] = [
    (formats.network, "my net"),
    (formats.network, "../x"),
    (formats.network, "Default"),
    (formats.network, "n" * 64),
    (formats.subnetwork, "a/b"),
    (formats.machine_type, "e2/../x"),
    (formats.gke_version, "1.34 x"),
    (formats.gke_version, "2.0"),
    (formats.location, "us east5"),
    (formats.location, "../us-east5"),
    (formats.service_account, "robot"),
    (formats.service_account, "Robot@p.iam.gserviceaccount.com"),
    (formats.scope, "cloud-platform"),
    (formats.scope, "https://example.com/auth/x"),
    (formats.runtime_version, "v2 alpha"),
    (formats.runtime_version, "a..b"),
]


@pytest.mark.parametrize(("check", "value"), GOOD)
def test_documented_forms_pass(check: Callable[[str], str], value: str) -> None:
    assert check(value) == value


@pytest.mark.parametrize(("check", "value"), BAD)
def test_other_forms_are_one_user_error(check: Callable[[str], str], value: str) -> None:
    with pytest.raises(UserError) as caught:
        check(value)
    assert "\n" not in caught.value.message and caught.value.hint


def test_finite_and_ascii_numbers() -> None:
    assert formats.finite(0.5, "--x") == 0.5
    assert formats.finite(None, "--x") is None
    for value in (float("nan"), float("inf"), float("-inf")):
        with pytest.raises(UserError):
            formats.finite(value, "--x")
    formats.ascii_numbers(["--num-slices", "2", "--env", "A=\u0663", "--", "\u0663"])
    for args in (["--num-slices", "\u0661"], ["--num-slices=\uff11"], ["-1.\u0665"]):
        with pytest.raises(UserError):
            formats.ascii_numbers(args)
