"""`xcli storage` for real: the real Google clients (REST) against FakeGoogle through
`responses`, the Kubernetes gateway against an in-memory API server, local records as files.
What a live run sends equals what the dry-run printed."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.storage.fake_google import NUMBER, FakeGoogle, served
from tests.support.cluster_access import registry_over
from tests.support.core import validate_core
from tests.support.fakekube import FakeKube
from xcli.cli.deps import Dependencies
from xcli.cli.errors import run_guarded
from xcli.cli.main import cli
from xcli.gateways.backoff import Timing
from xcli.gateways.google.container import ContainerGateway
from xcli.gateways.google.rest import RestGateway
from xcli.plan.storage import local_file
from xcli.storage.service import StorageGateways

WHERE = ["--cluster", "demo", "--project", "my-proj", "--zone", "us-east5-b"]
PV = "/api/v1/persistentvolumes/xcli-default-data"
PVC = "/api/v1/namespaces/default/persistentvolumeclaims/xcli-data"
RECORD = "/api/v1/namespaces/default/configmaps/xcli-storage-data"
MEMBER = (
    f"principal://iam.googleapis.com/projects/{NUMBER}/locations/global/workloadIdentityPools/"
    "my-proj.svc.id.goog/subject/ns/default/sa/default"
)


@dataclass
class Env:
    kube: FakeKube
    google: FakeGoogle
    gateways: StorageGateways

    def run(self, args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
        providers, _ = registry_over(self.kube)
        deps = Dependencies(providers=providers, storage_gateways=self.gateways)
        code = run_guarded(cli, ["storage", *args], debug=False, obj=deps)
        out, err = capsys.readouterr()
        return code, out, err

    def dry(self, args: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
        code, out, err = self.run([*args, "--dry-run", "-o", "json"], capsys)
        assert code == 0, err
        return {s["id"]: s for s in json.loads(out)["plan"]}

    def applied(self) -> dict[str, dict[str, Any]]:
        return {r.url.path: json.loads(r.content) for r in self.kube.patches()}


@pytest.fixture
def env() -> Iterator[Env]:
    from google.auth.credentials import AnonymousCredentials
    from google.auth.transport.requests import AuthorizedSession
    from google.cloud import container_v1

    kube, google = FakeKube(), FakeGoogle()
    timing = Timing(sleep=lambda _s, _e: None, rand=lambda: 0.5)
    client = container_v1.ClusterManagerClient(credentials=AnonymousCredentials(), transport="rest")
    gateways = StorageGateways(
        rest=RestGateway(AuthorizedSession(AnonymousCredentials()), timing=timing),  # type: ignore[no-untyped-call]
        container=lambda: ContainerGateway(client, timing=timing),
        sleep=lambda _s, _e: None,
    )
    with served(google):
        yield Env(kube, google, gateways)


def test_attach_gcsfuse_sends_what_the_dry_run_printed(
    env: Env, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["attach", "data", "--type", "gcsfuse", "--bucket", "my-data", *WHERE]
    planned = env.dry(args, capsys)
    assert env.google.calls == [] and env.kube.requests == []  # the dry-run read nothing
    code, _, err = env.run(args, capsys)
    assert code == 0, err
    applied = env.applied()
    for sid, path in (("pv", PV), ("pvc", PVC), ("record", RECORD)):
        assert applied[path] == planned[sid]["manifest"]
        validate_core(applied[path])
    update = [b for m, u, b in env.google.calls if m == "PUT" and "container" in u]
    assert [b["update"] for b in update] == [planned["addon"]["request"]["body"]["update"]]
    assert env.google.addons == {"gcsFuseCsiDriverConfig": True}
    binding = env.google.policies["my-data"]["bindings"]
    assert binding == [{"role": "roles/storage.objectUser", "members": [MEMBER]}]

    code, out, _ = env.run(["list", *WHERE, "-o", "json"], capsys)
    assert code == 0 and [r["name"] for r in json.loads(out)] == ["data"]
    code, _, err = env.run(args, capsys)  # the same name again
    assert code == 1 and "already attached" in err

    code, _, err = env.run(["detach", "data", *WHERE], capsys)
    assert code == 0, err
    assert not {PV, PVC, RECORD} & set(env.kube.objects)
    assert env.google.policies["my-data"]["bindings"] == []
    code, out, _ = env.run(["list", *WHERE], capsys)
    assert code == 0 and "no storage attached" in out


def test_a_driver_already_on_is_left_alone(env: Env, capsys: pytest.CaptureFixture[str]) -> None:
    env.google.addons["gcsFuseCsiDriverConfig"] = True
    env.google.policies["my-data"] = {
        "bindings": [{"role": "roles/storage.objectViewer", "members": ["user:a@example.com"]}],
        "etag": "CAE=",
    }
    args = ["attach", "data", "--type", "gcsfuse", "--bucket", "my-data", "--readonly", *WHERE]
    code, _, err = env.run(args, capsys)
    assert code == 0, err
    assert not [c for c in env.google.calls if c[0] == "PUT" and "container" in c[1]]
    members = env.google.policies["my-data"]["bindings"][0]["members"]
    assert members == ["user:a@example.com", MEMBER]  # added to the role, others kept


def test_mount_points_may_not_collide(env: Env, capsys: pytest.CaptureFixture[str]) -> None:
    base = ["--type", "gcsfuse", *WHERE]
    assert (
        env.run(["attach", "a", *base, "--bucket", "b-1", "--mount-point", "/data"], capsys)[0] == 0
    )
    code, _, err = env.run(
        ["attach", "b", *base, "--bucket", "b-2", "--mount-point", "/data/x"], capsys
    )
    assert code == 1 and err.startswith("error: mount point /data/x collides with storage a")


def test_create_and_delete_a_filestore_instance(
    env: Env, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["create", "fs", "--type", "filestore", "--size", "1TB", *WHERE]
    planned = env.dry(args, capsys)
    code, _, err = env.run(args, capsys)
    assert code == 0, err
    posts = [b for m, u, b in env.google.calls if m == "POST" and "file." in u]
    assert posts == [planned["create"]["request"]["body"]]
    pv = env.applied()["/api/v1/persistentvolumes/xcli-default-fs"]
    assert pv["spec"]["csi"]["volumeHandle"] == "modeInstance/us-east5-b/fs/vol1"
    assert pv["spec"]["csi"]["volumeAttributes"] == {"ip": "10.0.0.2", "volume": "vol1"}
    assert pv["spec"]["capacity"] == {"storage": "1024Gi"}
    validate_core(pv)

    code, _, err = env.run(["delete", "fs", *WHERE], capsys)  # no terminal, no --yes
    assert code == 1 and "needs confirmation" in err and env.google.instances
    code, _, err = env.run(["delete", "fs", *WHERE, "--yes"], capsys)
    assert code == 0, err
    assert env.google.instances == {}
    assert not [p for p in env.kube.objects if p.endswith("xcli-storage-fs")]


def test_delete_refuses_what_xcli_did_not_create(
    env: Env, capsys: pytest.CaptureFixture[str]
) -> None:
    env.google.buckets["theirs"] = {"name": "theirs"}
    args = ["attach", "data", "--type", "gcsfuse", "--bucket", "theirs", *WHERE]
    assert env.run(args, capsys)[0] == 0
    code, _, err = env.run(["delete", "data", *WHERE, "--yes"], capsys)
    assert code == 1 and "was not created by xcli" in err
    assert "theirs" in env.google.buckets


def test_local_cluster_storage_is_a_recorded_directory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "ckpt"
    data.mkdir()
    (data / "step-1").write_text("weights", encoding="utf-8")
    where = ["--cluster", "dev", "--provider", "local"]

    def run(args: list[str]) -> tuple[int, str, str]:
        code = run_guarded(cli, ["storage", *args], debug=False)
        out, err = capsys.readouterr()
        return code, out, err

    code, _, err = run(["attach", "ckpt", "--type", "gcsfuse", "--path", str(data), *where])
    assert code == 0, err
    record = json.loads(local_file("dev", "ckpt").read_text(encoding="utf-8"))
    assert (record["source"], record["mount_point"]) == (str(data), "/mnt/ckpt")
    code, out, _ = run(["list", *where, "-o", "yaml"])
    assert code == 0 and f"source: {data}" in out
    code, _, err = run(
        [
            "attach",
            "other",
            "--type",
            "gcsfuse",
            "--path",
            str(data),
            "--mount-point",
            "/mnt/ckpt",
            *where,
        ]
    )
    assert code == 1 and "collides" in err
    code, _, err = run(["detach", "ckpt", *where])
    assert code == 0, err
    assert not local_file("dev", "ckpt").exists()
    assert (data / "step-1").read_text(encoding="utf-8") == "weights"  # the data stays


def test_queued_resource_clusters_record_buckets_only(capsys: pytest.CaptureFixture[str]) -> None:
    where = ["--cluster", "qr", "--provider", "queued-resource", "--project", "my-proj"]
    where += ["--zone", "us-east5-b"]
    args = ["attach", "data", "--type", "gcsfuse", "--bucket", "my-data", "--readonly", *where]
    code = run_guarded(cli, ["storage", *args], debug=False)
    _, err = capsys.readouterr()
    assert code == 0, err
    record = json.loads(local_file("qr", "data").read_text(encoding="utf-8"))
    assert (record["type"], record["source"], record["readonly"]) == ("gcsfuse", "my-data", True)
    args = ["attach", "fs", "--type", "filestore", "--instance", "fs", *where]
    code = run_guarded(cli, ["storage", *args], debug=False)
    _, err = capsys.readouterr()
    assert code == 1 and "buckets only" in err


def test_a_grant_two_storages_share_stays_until_the_last_detach(
    env: Env, capsys: pytest.CaptureFixture[str]
) -> None:
    for name, mount in (("a", "/a"), ("b", "/b")):
        args = ["attach", name, "--type", "gcsfuse", "--bucket", "shared", "--mount-point", mount]
        assert env.run([*args, *WHERE], capsys)[0] == 0
    assert env.google.policies["shared"]["bindings"][0]["members"] == [MEMBER]
    writes = len([c for c in env.google.calls if c[0] == "PUT" and "/iam" in c[1]])
    code, _, err = env.run(["detach", "a", *WHERE], capsys)
    assert code == 0, err
    after = len([c for c in env.google.calls if c[0] == "PUT" and "/iam" in c[1]])
    assert after == writes  # the policy was not even written
    assert env.google.policies["shared"]["bindings"][0]["members"] == [MEMBER]
    code, _, err = env.run(["detach", "b", *WHERE], capsys)
    assert code == 0, err
    assert env.google.policies["shared"]["bindings"] == []
