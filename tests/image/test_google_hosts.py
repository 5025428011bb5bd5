"""The one rule for Google's registry hosts, used by the push's credentials, the registry's
refusal hint and the TPU VM's `docker login` (tests/workload/vm/test_plan.py)."""

from __future__ import annotations

import pytest

from tests.gateways.google.test_artifact_registry import GOOGLE, NEAR_MISSES
from xcli.image.google_hosts import is_google_registry


@pytest.mark.parametrize("host", GOOGLE)
def test_google_hosts(host: str) -> None:
    assert is_google_registry(host)


@pytest.mark.parametrize("host", NEAR_MISSES)
def test_near_misses(host: str) -> None:
    assert not is_google_registry(host)
