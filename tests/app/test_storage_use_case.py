"""app/storage.py with its dependencies injected: which reader a run gets from `deps.record`
(a live run reads the records through the cluster's ClusterAccess, a dry-run of a Kubernetes
cluster reads nothing, `storage list` always reads), and the order of reading, asking and
running. The plans themselves and the live runs against Google are tested in tests/storage/."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tests.app.cluster_deps import ClusterWorld
from tests.app.test_ssh_use_case import Where
from tests.support.core import validate_core
from xcli.app import storage, storage_request
from xcli.errors import UserError
from xcli.plan.storage import Storage, configmap_name, to_configmap
from xcli.storage.volumes import pv_name, pvc_name

WHERE = Where(project="my-proj", zone="us-east5-b")
CLUSTER = storage.ClusterWhere("demo", None, "default", WHERE)
RECORD = f"/api/v1/namespaces/default/configmaps/{configmap_name('ro')}"


def disk(created: bool = False) -> Storage:
    """A pd disk attached read-only (no bucket grant: detaching it touches only Kubernetes)."""
    return Storage(
        name="ro", type="pd", source="projects/my-proj/zones/us-east5-b/disks/d1",
        mount_point="/ro", readonly=True, pvc=pvc_name("ro"), created=created,
        attributes={"ksa": "default", "pv": pv_name("default", "ro")},
    )  # fmt: skip


def attached(world: ClusterWorld, record: Storage) -> None:
    world.fake.put(RECORD, to_configmap(record))
    claim = f"/api/v1/namespaces/default/persistentvolumeclaims/{record.pvc}"
    world.fake.put(claim, {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                           "metadata": {"name": record.pvc, "namespace": "default"}})  # fmt: skip
    volume = f"/api/v1/persistentvolumes/{record.attributes['pv']}"
    world.fake.put(volume, {"apiVersion": "v1", "kind": "PersistentVolume",
                            "metadata": {"name": record.attributes["pv"]}})  # fmt: skip


def test_a_dry_run_detach_reads_nothing_and_says_what_the_live_run_reads_first() -> None:
    world = ClusterWorld()
    bare = storage.RemoveStorage("ro", CLUSTER, storage.Source(None))
    storage.detach(bare, world.deps(dry=True))
    steps = world.printed_steps()
    assert list(steps) == ["record", "delete-pvc", "delete-pv", "delete-record"]
    assert steps["record"]["kind"] == "read_first"
    assert steps["record"]["name"] == configmap_name("ro")
    assert steps["delete-pvc"]["name"] == "${record.pvc}"  # what only the record knows
    assert steps["delete-record"]["name"] == configmap_name("ro")  # what the name says
    assert world.fake.requests == []
    storage.delete(bare, world.deps(dry=True))
    assert "${record.source}" in " ".join(world.plans[-1].notes)
    assert world.fake.requests == []
    described = storage.RemoveStorage("ro", CLUSTER, storage.Source("pd", disk="d1"))
    storage.detach(described, world.deps(dry=True))
    assert list(world.printed_steps()) == ["delete-pvc", "delete-pv", "delete-record"]
    assert world.fake.requests == []


def test_a_live_detach_reads_the_record_through_the_cluster_access() -> None:
    world = ClusterWorld()
    attached(world, disk())
    validate_core(world.fake.objects[RECORD])
    storage.detach(storage.RemoveStorage("ro", CLUSTER, storage.Source(None)), world.deps())
    assert RECORD not in world.fake.objects
    assert not [p for p in world.fake.objects if "persistentvolume" in p]
    assert world.asked == []


def test_a_live_detach_of_a_storage_not_there_names_those_that_are() -> None:
    world = ClusterWorld()
    attached(world, disk())
    with pytest.raises(UserError, match="no storage other attached to cluster demo") as err:
        storage.detach(storage.RemoveStorage("other", CLUSTER, storage.Source(None)), world.deps())
    assert err.value.hint == "storages on it: ro"
    assert world.plans == []


def test_delete_reads_then_refuses_what_create_did_not_make_before_asking() -> None:
    world = ClusterWorld()
    attached(world, disk())
    remove = storage.RemoveStorage("ro", CLUSTER, storage.Source(None))
    with pytest.raises(UserError, match="was not created by xcli storage create"):
        storage.delete(remove, world.deps())
    assert world.asked == [] and world.plans == []


def test_delete_of_a_type_xcli_cannot_create_is_refused_even_if_recorded_created() -> None:
    world = ClusterWorld()
    attached(world, disk(created=True))
    remove = storage.RemoveStorage("ro", CLUSTER, storage.Source(None))
    with pytest.raises(UserError, match="xcli does not delete it"):
        storage.delete(remove, world.deps())


def test_list_reads_even_when_the_run_is_a_dry_run() -> None:
    world = ClusterWorld()
    attached(world, disk())
    assert [r.name for r in storage.list_storages(CLUSTER, world.deps(dry=True))] == ["ro"]


def test_attach_checks_the_source_before_reading_anything() -> None:
    world = ClusterWorld()
    request = storage.AttachStorage("d", CLUSTER, storage.Source("lustre"), storage.Mount())
    with pytest.raises(UserError, match="lustre storage needs --instance"):
        storage.attach(request, world.deps())
    assert world.fake.requests == []


@pytest.mark.parametrize(("kind", "field"), [("gcsfuse", "bucket"), ("filestore", "instance")])
def test_a_bucket_or_filestore_instance_not_named_is_the_storages_name_as_xpk_infers(
    kind: str, field: str
) -> None:
    # XPK's --bucket and --instance: "If not set, then the "name" parameter is inferred"
    # (AI-Hypercomputer/xpk 367c838253be src/xpk/parser/storage.py:126-131, 164-168)
    said: list[str] = []
    deps = replace(ClusterWorld().deps(dry=True), say=said.append)
    areq, _ = storage_request.attach_request(
        "team-data", CLUSTER, storage.Source(kind), storage.Mount(), deps
    )
    assert getattr(areq, field) == "team-data"
    assert said == [f"note: no --{field} given: {field} team-data, the storage's name, as XPK "
                    "infers it"]  # fmt: skip


def test_create_refuses_a_type_it_cannot_make_with_the_types_hint() -> None:
    world = ClusterWorld()
    attach = storage.AttachStorage("d", CLUSTER, storage.Source("pd", disk="d1"), storage.Mount())
    request = storage.CreateStorage(attach, "", "ZONAL", 1000, "default")
    with pytest.raises(UserError, match="xcli cannot create pd storage") as err:
        storage.create_storage(request, world.deps(dry=True))
    assert "gcloud compute disks create" in err.value.hint
