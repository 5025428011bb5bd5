from __future__ import annotations

from lightkube.models.core_v1 import ConfigMap

from xcli.plan.storage import Storage, configmap_name, from_configmap, to_configmap


def test_record_round_trips_through_its_configmap() -> None:
    record = Storage(
        name="data",
        type="gcsfuse",
        source="my-bucket",
        mount_point="/data",
        readonly=True,
        auto_mount=True,
        mount_options=("implicit-dirs", "file-cache:max-size-mb:-1"),
        namespace="team-a",
        pvc="xcli-data",
        attributes={"bucket": "my-bucket"},
    )
    obj = to_configmap(record)
    ConfigMap.from_dict(obj)  # a valid core/v1 ConfigMap
    assert obj["metadata"]["name"] == configmap_name("data") == "xcli-storage-data"
    assert obj["metadata"]["namespace"] == "team-a"
    assert obj["metadata"]["labels"]["xcli.dev/storage"] == "true"
    assert from_configmap(obj) == record
