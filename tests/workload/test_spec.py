"""WorkloadSpec validation: names against generated pod names, env, cluster metadata."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.workload.cases import meta_for, spec_for
from xcli.catalog import lookup
from xcli.errors import ConfigError, UserError
from xcli.workload.spec import (
    cluster_meta_from_dict,
    max_workload_name,
    parse_env,
)


@pytest.mark.parametrize(
    ("accel", "slices", "nodes", "limit"),
    [
        # 63 - len("-slice-1-63-xxxxx")
        ("v6e-256", 2, 1, 46),
        # 63 - len("-slice-0-3-xxxxx")
        ("v5litepod-16", 1, 1, 47),
        # 63 - len("-slice-3-15-xxxxx")
        ("v5p-128", 4, 1, 46),
        # 63 - len("-slice-99-15-xxxxx"): more slices, more digits, shorter names
        ("v5p-128", 100, 1, 45),
        # 63 - len("-workers-0-1-xxxxx")
        ("h100-80gb-8", 1, 2, 45),
    ],
)
def test_name_limit_follows_the_longest_pod_name(
    accel: str, slices: int, nodes: int, limit: int
) -> None:
    a = lookup(accel)
    assert max_workload_name(a, slices, nodes) == limit
    rjob = "slice" if a.kind == "tpu" else "workers"
    jobs, pods = (slices, a.vms_per_slice) if a.kind == "tpu" else (1, nodes)
    longest = f"{'w' * limit}-{rjob}-{jobs - 1}-{pods - 1}-abcde"
    assert len(longest) == 63


def test_too_long_name_is_refused_with_the_limit_explained() -> None:
    with pytest.raises(UserError) as err:
        spec_for("v6e-256-x2", name="n" * 47)
    assert "47 characters" in err.value.message and "limit is 46" in err.value.message
    assert "<workload>-slice-<slice>-<worker>-<5 random characters>" in err.value.hint
    assert spec_for("v6e-256-x2", name="n" * 46).name == "n" * 46


@pytest.mark.parametrize("bad", ["Train", "1abc", "a_b", "ab-", ""])
def test_bad_names(bad: str) -> None:
    with pytest.raises(UserError):
        spec_for("v6e-256-x2", name=bad)


def test_defaults_come_from_the_cluster() -> None:
    spec = spec_for("v5p-128-x4-spot")
    assert spec.accelerator.name == "v5p-128" and spec.num_slices == 4
    assert spec.priority == "medium" and spec.total_workers == 64 and spec.total_chips == 256
    gpu = spec_for("h100-80gb-8-x2")
    assert gpu.num_nodes == 2 and gpu.num_slices == 1 and gpu.total_chips == 16


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"priority": "urgent"}, "unknown priority"),
        ({"image": "has space"}, "not an image reference"),
        ({"command": "  "}, "command is empty"),
        ({"restart_on_exit_codes": (0,)}, "not 1..255"),
        ({"restart_on_exit_codes": (256,)}, "not 1..255"),
        ({"max_restarts": -1}, "out of range"),
    ],
)
def test_bad_values(overrides: dict[str, object], message: str) -> None:
    with pytest.raises(UserError, match=message):
        spec_for("v6e-256-x2", **overrides)


def test_num_slices_is_for_tpus() -> None:
    with pytest.raises(UserError, match="--num-slices is for TPUs"):
        spec_for("h100-80gb-8-x2", num_slices=2)


def test_env_pairs_and_file(tmp_path: Path) -> None:
    f = tmp_path / "vars.env"
    f.write_text("# comment\n\nexport A=1\nB='two words'\nC=\"x=y\"\nA=from-file\n")
    env = parse_env(["D=4", "A=flag"], f)
    assert env == (("A", "flag"), ("B", "two words"), ("C", "x=y"), ("D", "4"))


@pytest.mark.parametrize(
    ("pair", "message"),
    [
        ("NOEQUALS", "is not NAME=VALUE"),
        ("1X=2", "not a valid environment variable name"),
        ("A-B=2", "not a valid environment variable name"),
    ],
)
def test_bad_env(pair: str, message: str) -> None:
    with pytest.raises(UserError, match=message):
        parse_env([pair])


@pytest.mark.parametrize(
    ("case", "name", "refused"),
    [
        ("v6e-256-x2", "MEGASCALE_SLICE_ID", True),
        ("v6e-256-x2", "JAX_PROCESS_ID", True),
        ("v6e-256-x2", "MASTER_ADDR", False),  # xcli sets it only for GPUs
        ("h100-80gb-8-x2", "NODE_RANK", True),
        ("h100-80gb-8-x2", "MEGASCALE_PORT", False),
    ],
)
def test_contract_variables_are_reserved_per_hardware(case: str, name: str, refused: bool) -> None:
    if refused:
        with pytest.raises(UserError, match=f"--env {name} is set by xcli"):
            spec_for(case, env=((name, "1"),))
    else:
        assert spec_for(case, env=((name, "1"),)).env == ((name, "1"),)


def test_env_file_errors_name_the_line(tmp_path: Path) -> None:
    f = tmp_path / "vars.env"
    f.write_text("A=1\nbad line\n")
    with pytest.raises(UserError, match=r"vars\.env:2"):
        parse_env([], f)
    with pytest.raises(UserError, match=r"--env-file .*missing\.env: no such file"):
        parse_env([], tmp_path / "missing.env")


def test_cluster_metadata_from_configmap() -> None:
    configmap = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "xcli-cluster-metadata"},
        "data": {
            "accelerator": "v5p-4x4x4",
            "slices": "4",
            "capacity_type": "reservation",
            "reservation": "projects/other-proj/reservations/r1",
            "xcli_version": "0.1.0",
        },
    }
    meta = cluster_meta_from_dict(configmap, "demo")
    assert meta.accelerator.name == "v5p-128" and meta.num_slices == 4
    assert meta.capacity.kind == "reservation"
    assert meta.capacity.reservation == "projects/other-proj/reservations/r1"
    assert meta.local_queue == "xcli-queue" and meta.source == "configmap"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({}, "names no accelerator"),
        ({"accelerator": "v6e-256", "capacity": "cheap"}, "unknown capacity"),
        ({"accelerator": "v6e-256", "num_slices": "two"}, "not a number"),
        # 0 is a cluster made with --num-slices 0 (issue 36); fewer is not
        ({"accelerator": "v6e-256", "num_slices": "-1"}, "at least 0"),
        ({"accelerator": "h100-80gb-8", "num_nodes": "0"}, "at least 1"),
        ({"accelerator": "v6e-256", "capacity": "reservation"}, "without a `reservation`"),
    ],
)
def test_bad_cluster_metadata(data: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        cluster_meta_from_dict(data, "demo")


def test_meta_fixture_is_consistent() -> None:
    assert meta_for("tpu7x-8").capacity.reservation == "res-a"


def test_a_cluster_without_slices_yet_says_how_to_grow_it() -> None:
    """issue 36: `cluster create --num-slices 0` records 0 slices; a workload is refused by
    check_fits with the command that adds them."""
    from xcli.workload.jobset.plan import check_fits
    from xcli.workload.spec import cluster_meta_from_dict, workload_spec

    meta = cluster_meta_from_dict({"accelerator": "v6e-8", "num_slices": "0"}, "empty")
    assert meta.num_slices == 0
    spec = workload_spec(cluster="empty", name="w", image="img:1", command="true", meta=meta,
                         num_slices=1)  # fmt: skip
    with pytest.raises(UserError, match="1 slices requested but cluster empty has 0") as caught:
        check_fits(spec, meta, ())
    assert "--num-slices 1" in (caught.value.hint or "")
