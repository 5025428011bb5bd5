"""The storage type registry: every unit is complete and consistent with the APIs it names, and
each type's own rules (capacities, refused options, sources) live in its unit."""

from __future__ import annotations

import pytest

from tests.support.discovery import document
from xcli.errors import InternalError, UserError
from xcli.plan.cluster import ClusterRef
from xcli.plan.storage import Storage
from xcli.plan.storage_request import AttachRequest, CreateRequest
from xcli.plan.storage_types import UNITS, filestore, find, lustre, names, unit

REF = ClusterRef("demo", "my-proj", "us-east5-b", "gke")


def test_the_registry_lists_every_type_in_order() -> None:
    assert names() == ("gcsfuse", "filestore", "lustre", "parallelstore", "pd", "hyperdisk-ml")
    assert all(UNITS[n].name == n for n in names())
    assert find("nfs") is None and find("lustre") is unit("lustre")


def test_unknown_type_suggests() -> None:
    with pytest.raises(UserError) as err:
        unit("filestor")
    assert err.value.hint == "did you mean filestore?"


@pytest.mark.parametrize("name", list(UNITS))
def test_each_addon_is_a_container_v1_addons_config_field(name: str) -> None:
    from google.cloud import container_v1

    kind = unit(name)
    fields = document("container")["schemas"]["AddonsConfig"]["properties"]
    assert kind.addon in fields, kind.addon
    # the live reader reads the same field from google-cloud-container's message
    assert kind.addon_attr in container_v1.AddonsConfig.meta.fields
    assert kind.driver.endswith(".csi.storage.gke.io")


@pytest.mark.parametrize("name", list(UNITS))
def test_creatable_types_create_and_delete_the_others_say_what_to_do(name: str) -> None:
    kind = unit(name)
    attach = AttachRequest(name="d", type=name, cluster=REF, mount_point="/d", bucket="b-1",
                           instance="i", disk="k")  # fmt: skip
    record = Storage(name="d", type=name, source="projects/p/locations/l/instances/i",
                     mount_point="/d", created=True)  # fmt: skip
    if kind.creatable:
        step = kind.create_step(CreateRequest(attach=attach, size_gib=9000), {"a": "b"})
        assert step.id == "create" and step.body["labels"] == {"a": "b"}  # type: ignore[attr-defined]
        assert kind.delete_step(record, ("x",)).after == ("x",)
        assert not kind.not_creatable_hint
    else:
        assert kind.not_creatable_hint
        with pytest.raises(InternalError):
            kind.create_step(CreateRequest(attach=attach), {})


def test_network_needs_belong_to_the_instance_types_that_have_them() -> None:
    needing = {n: UNITS[n].network for n in names() if UNITS[n].network is not None}
    assert set(needing) == {"lustre", "parallelstore"}
    assert needing["lustre"] is not None and needing["lustre"].ports == ("988",)
    assert [n for n in names() if UNITS[n].recreates_nodes] == ["lustre"]
    assert [n for n in names() if UNITS[n].vm_mountable] == ["gcsfuse"]
    assert [n for n in names() if UNITS[n].read_only_only] == ["pd", "hyperdisk-ml"]


def test_gcsfuse_refuses_the_options_its_driver_refuses() -> None:
    unit("gcsfuse").check_mount_option("implicit-dirs")
    with pytest.raises(UserError, match="refuses mount option"):
        unit("gcsfuse").check_mount_option("temp-dir=/x")
    unit("filestore").check_mount_option("temp-dir=/x")  # only gcsfuse's driver refuses it


def test_sources_are_checked_by_their_type() -> None:
    with pytest.raises(UserError, match="needs --bucket"):
        unit("gcsfuse").check_source("d", "", "", "", new_bucket=False, created=False)
    with pytest.raises(UserError, match="needs --disk"):
        unit("pd").check_source("d", "", "", "", new_bucket=False, created=False)
    with pytest.raises(UserError, match="needs --instance"):
        unit("lustre").check_source("d", "", "", "", new_bucket=False, created=False)
    # storage create names the instance after the storage
    assert unit("lustre").check_source("d", "", "", "", new_bucket=False, created=True) == "d"


def test_filestore_tier_limits() -> None:
    filestore.capacity("ZONAL", 1024)
    filestore.capacity("REGIONAL", 100)
    for tier, gib in (("ZONAL", 1000), ("BASIC_SSD", 2048), ("ENTERPRISE", 10241)):
        with pytest.raises(UserError):
            filestore.capacity(tier, gib)


def test_lustre_steps_change_above_the_band() -> None:
    lustre.capacity(1000, 9000)
    lustre.capacity(1000, 1530000 + 72000)
    for gib in (8999, 10000, 1530000 + 9000, 10008000 + 72000):
        with pytest.raises(UserError):
            lustre.capacity(1000, gib)


def test_create_sizes_and_locations() -> None:
    with pytest.raises(UserError, match="needs --size"):
        unit("filestore").create_size("", "ZONAL", 1000)
    assert unit("filestore").create_size("1TB", "ZONAL", 1000) == 1024
    assert unit("gcsfuse").create_size("", "ZONAL", 1000) == 0
    attach = AttachRequest(name="d", type="filestore", cluster=REF, mount_point="/d")
    assert unit("filestore").create_location(attach, "ZONAL") == "us-east5-b"
    assert unit("filestore").create_location(attach, "REGIONAL") == "us-east5"
    assert unit("lustre").create_location(attach, "REGIONAL") == ""  # the zone, by default


def test_pod_settings_are_the_ones_the_workload_side_uses() -> None:
    from xcli.workload.jobset import volumes

    def annotations(kind: str) -> dict[str, str]:
        s = Storage(name="d", type=kind, source="b", mount_point="/d", pvc="d")
        return dict(volumes.pod_settings([s])["annotations"])

    assert annotations("gcsfuse") == {
        "gke-gcsfuse/volumes": "true",
        "gke-gcsfuse/cpu-limit": "0",
        "gke-gcsfuse/memory-limit": "0",
        "gke-gcsfuse/ephemeral-storage-limit": "0",
    }
    assert annotations("parallelstore") == {"gke-parallelstore/volumes": "true"}
    assert annotations("lustre") == {} and annotations("filestore") == {}
    gcs = Storage(name="d", type="gcsfuse", source="b", mount_point="/d")
    assert volumes.notes([gcs], host_network=True) == [unit("gcsfuse").host_network_note]
    assert all(not unit(n).pod_annotations for n in ("filestore", "lustre", "pd"))
