from __future__ import annotations

import pytest

from xcli.catalog import lookup
from xcli.errors import UserError


def test_count_and_topology_forms_name_the_same_slice() -> None:
    assert lookup("v6e-16x16") == lookup("v6e-256")
    assert lookup("v6e-16x16").name == "v6e-256"


def test_unknown_size_suggests_the_nearest() -> None:
    with pytest.raises(UserError) as err:
        lookup("v6e-257")
    assert "v6e-256" in err.value.hint


def test_gpu_network_stack_per_family() -> None:
    from xcli.catalog import store

    stacks = {
        name: store.lookup(name).gpu_network
        for name in ("h100-80gb-8", "h100-mega-80gb-8", "h200-141gb-8", "b200-8", "gb200-4")
    }
    assert stacks == {
        "h100-80gb-8": "tcpx",
        "h100-mega-80gb-8": "tcpxo",
        "h200-141gb-8": "rdma",
        "b200-8": "rdma",
        "gb200-4": "rdma",
    }
    assert store.lookup("l4-1").gpu_network is None
    assert store.lookup("v6e-8").gpu_network is None
