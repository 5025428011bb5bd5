"""The CPU pool and the controllers grow with the cluster, and the plan says what it chose."""

from __future__ import annotations

import pytest

from xcli.plan.gke.system_pool import (
    DEFAULT_MACHINE,
    allocatable_mi,
    controllers,
    note,
    size,
)


def test_small_clusters_keep_one_default_node_and_no_note() -> None:
    pool = size(16)
    assert (pool.machine, pool.nodes) == (DEFAULT_MACHINE, 1)
    assert pool.controllers.kueue_mi == 4096 and pool.controllers.kueue_cpu == 2
    assert note(pool, None) is None


def test_allocatable_follows_gkes_reservation_steps() -> None:
    # 32 GiB: 1 + 0.8 + 0.8 + 0.06 * 16 = 3.56 GiB reserved, and 100 MiB for eviction
    assert allocatable_mi(32) == int((32 - 3.56) * 1024) - 100
    assert allocatable_mi(256) == int((256 - (1 + 0.8 + 0.8 + 6.72 + 2.56)) * 1024) - 100


@pytest.mark.parametrize(
    ("vms", "machine"),
    [(1536, "e2-standard-16"), (2048, "e2-standard-32"), (2304, "e2-standard-32")],
)
def test_the_largest_shapes_get_a_machine_that_holds_kueue_on_one_node(
    vms: int, machine: str
) -> None:
    pool = size(vms)
    ctl = pool.controllers
    assert pool.machine == machine
    assert ctl.nodes == vms + pool.nodes  # the CPU pool's own nodes are counted
    assert ctl.kueue_mi == 32 * ctl.nodes and ctl.kueue_cpu == -(-4 * ctl.nodes // 1000)
    gib = {"e2-standard-16": 64, "e2-standard-32": 128}[machine]
    assert allocatable_mi(gib) >= ctl.kueue_mi
    # every replica of DNS (one per 16 nodes), Kueue and JobSet fit in the pool's memory
    need = ctl.kueue_mi + ctl.jobset_mi + pool.dns_replicas * 110
    assert pool.nodes * allocatable_mi(gib) >= need
    assert pool.dns_replicas == -(-ctl.nodes // 16)
    said = note(pool, None)
    assert said is not None and f"{pool.nodes} x {machine}" in said
    assert f"{ctl.kueue_mi} MiB" in said


def test_a_chosen_machine_is_kept_and_a_too_small_one_is_named() -> None:
    pool = size(2304, "e2-standard-8")
    assert pool.machine == "e2-standard-8"
    said = note(pool, "e2-standard-8")
    assert said is not None and "one e2-standard-8 node cannot hold the Kueue" in said
    assert size(2304, "c3-standard-44").machine == "c3-standard-44"


def test_beyond_the_largest_machine_the_note_says_it_will_not_fit() -> None:
    assert controllers(20000).kueue_mi > allocatable_mi(512)
    pool = size(20000)
    assert pool.machine == "n2-highmem-64"
    said = note(pool, None)
    assert said is not None and "cannot hold the Kueue controller" in said
