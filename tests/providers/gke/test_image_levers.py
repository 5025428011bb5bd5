"""cluster create --image-streaming / --secondary-boot-disk: the accelerator pools' NodeConfig,
checked against container.v1's discovery document; the system pool keeps neither."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from tests.providers.gke.test_planner import SPOT2, body
from xcli.errors import UserError
from xcli.providers.gke import options as gke_opts
from xcli.providers.gke.planner import plan_create


def with_options(**options: Any) -> Any:
    return replace(SPOT2, options=replace(gke_opts.of(SPOT2), **options))


def test_image_streaming_sets_gcfs_on_every_accelerator_pool() -> None:
    spec = with_options(image_streaming=True)
    config = body(spec)["config"]
    assert config["gcfsConfig"] == {"enabled": True}
    assert config["imageType"] == "COS_CONTAINERD"
    assert "secondaryBootDisks" not in config
    plan = plan_create(spec)
    pools = [s for s in plan.steps if s.id.startswith("pool-")]
    assert len(pools) == 2
    for step in pools:
        assert step.body["nodePool"]["config"]["gcfsConfig"] == {"enabled": True}  # type: ignore[attr-defined]
    cluster = next(s for s in plan.steps if s.id == "cluster")
    assert "gcfsConfig" not in str(cluster.body)  # type: ignore[attr-defined]
    assert any("containerfilesystem.googleapis.com" in n for n in plan.notes)


def test_without_the_flags_the_pool_is_unchanged() -> None:
    config = body(SPOT2)["config"]
    assert "gcfsConfig" not in config and "imageType" not in config


@pytest.mark.parametrize(
    ("value", "image"),
    [
        ("global/images/trainer-cache", "projects/my-project/global/images/trainer-cache"),
        ("projects/img-proj/global/images/c1", "projects/img-proj/global/images/c1"),
    ],
)
def test_secondary_boot_disk_turns_image_streaming_on(value: str, image: str) -> None:
    spec = with_options(secondary_boot_disk=(value,))
    config = body(spec)["config"]
    assert config["secondaryBootDisks"] == [{"diskImage": image, "mode": "CONTAINER_IMAGE_CACHE"}]
    assert config["gcfsConfig"] == {"enabled": True}
    assert any("secondary boot disks require it" in n for n in plan_create(spec).notes)


@pytest.mark.parametrize("value", ["trainer", "projects/p/images/x", "global/images/Bad_Name"])
def test_a_malformed_disk_image_is_refused(value: str) -> None:
    with pytest.raises(UserError, match="is not a disk image"):
        plan_create(with_options(secondary_boot_disk=(value,)))


def test_a_gke_version_too_old_for_secondary_boot_disks_is_refused() -> None:
    old = with_options(secondary_boot_disk=("global/images/c",), gke_version="1.28.3-gke.1000")
    with pytest.raises(UserError, match=r"needs GKE 1\.28\.3-gke\.1067000 or later"):
        plan_create(old)
    new = with_options(secondary_boot_disk=("global/images/c",), gke_version="1.33.5-gke.1")
    assert body(new)["config"]["secondaryBootDisks"]
