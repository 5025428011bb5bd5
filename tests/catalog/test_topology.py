"""Topology math of every family: both name forms, extremes, rejected shapes, XPK parity."""

from __future__ import annotations

import csv

import pytest

from tests.conftest import DATA
from xcli.catalog import all_names, families, lookup
from xcli.catalog.topology import product
from xcli.errors import NotFoundError, UserError

# (name, topology, chips, chips per VM, VMs per slice, machine type)
KNOWN = [
    ("v4-8", "2x2x1", 4, 4, 1, "ct4p-hightpu-4t"),
    ("v4-8192", "4x4x256", 4096, 4, 1024, "ct4p-hightpu-4t"),  # XPK's choice for 4096 chips
    ("v5litepod-8", "2x4", 8, 4, 2, "ct5lp-hightpu-4t"),
    ("v5litepod-16", "4x4", 16, 4, 4, "ct5lp-hightpu-4t"),
    ("v5litepod-256", "16x16", 256, 4, 64, "ct5lp-hightpu-4t"),
    ("v5p-8", "2x2x1", 4, 4, 1, "ct5p-hightpu-4t"),
    ("v5p-32", "2x2x4", 16, 4, 4, "ct5p-hightpu-4t"),
    ("v5p-128", "4x4x4", 64, 4, 16, "ct5p-hightpu-4t"),
    ("v5p-17920", "16x20x28", 8960, 4, 2240, "ct5p-hightpu-4t"),
    ("v6e-1", "1x1", 1, 1, 1, "ct6e-standard-1t"),
    ("v6e-4", "2x2", 4, 4, 1, "ct6e-standard-4t"),
    ("v6e-8", "2x4", 8, 4, 2, "ct6e-standard-4t"),
    ("v6e-256", "16x16", 256, 4, 64, "ct6e-standard-4t"),
    ("tpu7x-2", "1x1x1", 1, 1, 1, "tpu7x-standard-1t"),
    ("tpu7x-8", "2x2x1", 4, 4, 1, "tpu7x-standard-4t"),
    ("tpu7x-128", "4x4x4", 64, 4, 16, "tpu7x-standard-4t"),
    ("tpu7x-18432", "16x24x24", 9216, 4, 2304, "tpu7x-standard-4t"),
]


@pytest.mark.parametrize(("name", "topology", "chips", "per_vm", "vms", "machine"), KNOWN)
def test_known_shapes(
    name: str, topology: str, chips: int, per_vm: int, vms: int, machine: str
) -> None:
    accel = lookup(name)
    assert (accel.name, accel.topology, accel.chips) == (name, topology, chips)
    assert (accel.chips_per_vm, accel.vms_per_slice, accel.machine_type) == (per_vm, vms, machine)
    # the topology form names the same slice, and canonicalises to the count form
    assert accel.topology_name is not None
    assert lookup(accel.topology_name) == accel


@pytest.mark.parametrize(
    ("family", "count_names", "all_shapes", "smallest", "largest"),
    [
        # XPK's map has 868 v4 names: 800 topology names (796 permutations of multiple-of-4
        # shapes plus 4 small shapes) and 68 count names
        ("v4", 68, 800, "v4-8", "v4-8192"),
        ("v5e", 6, 6, "v5litepod-8", "v5litepod-256"),
        ("v5p", 127, 414, "v5p-8", "v5p-17920"),
        ("v6e", 8, 8, "v6e-1", "v6e-256"),
        ("tpu7x", 131, 433, "tpu7x-2", "tpu7x-18432"),
    ],
)
def test_family_sizes(
    family: str, count_names: int, all_shapes: int, smallest: str, largest: str
) -> None:
    names = all_names(family)
    assert len(names) == count_names
    assert len(families()[family].topologies) == all_shapes
    assert names[0] == smallest and names[-1] == largest
    # every count name's chips match the topology it stands for
    for name in names:
        accel = lookup(name)
        assert accel.topology is not None
        assert product([int(d) for d in accel.topology.split("x")]) == accel.chips
        assert accel.chips == accel.chips_per_vm * accel.vms_per_slice


def test_count_names_mean_the_same_slice_as_in_xpk() -> None:
    """Every count name of a family we cover maps to the topology XPK 1.16.0 gives it."""
    path = DATA / "count-form-topologies.csv"
    rows = [r for r in csv.DictReader(path.open()) if r["family"] in families()]
    assert len(rows) == 340
    wrong = [(r["name"], r["topology"], lookup(r["name"]).topology) for r in rows]
    wrong = [w for w in wrong if w[1] != w[2]]
    assert wrong == []
    assert {r["name"] for r in rows} == {n for n in all_names() if lookup(n).kind == "tpu"}


def test_v4_accepts_permutations_others_do_not() -> None:
    assert lookup("v4-8x4x4").chips == 128
    assert lookup("v4-8x4x4").topology == "8x4x4"
    with pytest.raises(UserError, match="non-decreasing") as err:
        lookup("v5p-8x4x4")
    assert "v5p-4x4x8" in err.value.hint


@pytest.mark.parametrize(
    ("name", "rule"),
    [
        ("v5p-4x4x6", "multiple of 4"),
        ("v5p-3x3x3", "multiple of 4"),
        ("v5p-32x32x32", "at most 8960"),
        ("v4-16x16x32", "at most 4096"),
        ("tpu7x-28x28x28", "at most 9216"),
        ("v6e-3x3", "not a v6e topology"),
        ("v5litepod-1x1", "not a v5e topology"),  # no single-chip v5e slices
        ("v6e-4x4x4", "2 dimensions"),
        ("v5p-4x4", "3 dimensions"),
        ("v6e-257", "not a v6e slice size"),
        ("v5p-12", "not a v5p slice size"),  # 6 chips: no such shape
        ("v5p-7", "not a v5p slice size"),  # odd: not whole chips
        ("h100-80gb-4", "comes in h100-80gb-8"),
    ],
)
def test_rejected_shapes_say_which_rule(name: str, rule: str) -> None:
    with pytest.raises(UserError, match=rule) as err:
        lookup(name)
    assert err.value.hint


@pytest.mark.parametrize("name", ["v7-8", "tpu-v6e-8", "h100", "", "v6e-4x4y4"])
def test_unknown_names(name: str) -> None:
    with pytest.raises(NotFoundError) as err:
        lookup(name)
    assert "catalog list" in err.value.hint


def test_did_you_mean_for_a_typo() -> None:
    with pytest.raises(NotFoundError) as err:
        lookup("v6-256")
    assert "v6e-256" in err.value.hint


def test_gpus() -> None:
    h100 = lookup("h100-80gb-8")
    assert (h100.kind, h100.chips, h100.vms_per_slice, h100.machine_type) == (
        "gpu",
        8,
        1,
        "a3-highgpu-8g",
    )
    assert (h100.gke_accelerator, h100.resource_name) == ("nvidia-h100-80gb", "nvidia.com/gpu")
    assert lookup("gb200-4").arch == "arm64"
    assert lookup("gb200-4").topology == "1x72"
    assert lookup("l4-2").machine_type == "g2-standard-24"
    gpu_names = [n for n in all_names() if lookup(n).kind == "gpu"]
    assert len(gpu_names) == 14  # gb200-4-nolssd is a variant of gb200-4


def test_a4x_no_local_ssd_variant() -> None:
    """gb200-4-nolssd: the same GPU on a4x-highgpu-4g-nolssd, with its own cited source."""
    base, variant = lookup("gb200-4"), lookup("GB200-4-NOLSSD")
    assert variant.name == "gb200-4-nolssd" and variant.machine_type == "a4x-highgpu-4g-nolssd"
    assert (variant.family, variant.topology, variant.arch) == ("gb200", "1x72", "arm64")
    assert (variant.gpu_network, variant.chips) == (base.gpu_network, base.chips)
    assert variant.sources["variant"].startswith("https://github.com/AI-Hypercomputer/xpk/")
    assert "variant" not in base.sources
    assert "gb200-4-nolssd" in all_names("gb200")
    # one NVLink domain: 1x72 GPUs, 4 per VM
    assert base.nvlink_domain_vms == variant.nvlink_domain_vms == 18
    assert lookup("h100-80gb-8").nvlink_domain_vms is None
    with pytest.raises(UserError) as wrong:
        lookup("gb200-4-nossd")
    assert wrong.value.hint == "did you mean gb200-4-nolssd?"


def test_cloud_tpu_api_facts() -> None:
    # small v5e/v6e slices are one VM on the Cloud TPU API, two on GKE
    assert lookup("v6e-8").tpu_api_vms_per_slice == 1
    assert lookup("v6e-16").tpu_api_vms_per_slice == 4
    assert lookup("v6e-256").runtime_version == "v2-alpha-tpuv6e"
    # the Cloud TPU API does not serve TPU7x
    assert lookup("tpu7x-8").tpu_accelerator_type is None
    assert lookup("tpu7x-128").placement == "workload-policy"
    assert lookup("v5p-128").placement == "compact"
    assert lookup("v5p-8").placement is None
