"""`xcli storage attach --manifest FILE` (XPK's --manifest, issue 36): the user's PV and PVC,
checked before anything is sent, then applied as written with xcli's record, over the real
clients (tests/storage/test_storage_live.py's fakes). The files are XPK's own examples
(tests/data/upstream/AI-Hypercomputer/xpk/examples/storage/), filled in as a user would."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.cli.xpk_corpus import user_manifest
from tests.storage.test_storage_live import WHERE, Env, env  # noqa: F401  (the fixture)
from tests.support.core import validate_core
from xcli.plan.storage import from_configmap

PV = "/api/v1/persistentvolumes/xpk-pd-pv"
PVC = "/api/v1/namespaces/default/persistentvolumeclaims/xpk-pd-pvc"
RECORD = "/api/v1/namespaces/default/configmaps/xcli-storage-disk"


def _file(tmp_path: Path, text: str) -> str:
    path = tmp_path / "pd-manifest-attach.yaml"
    path.write_text(text)
    return str(path)


def test_the_users_pv_and_pvc_are_applied_as_written_with_the_record(
    env: Env,  # noqa: F811
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = _file(tmp_path, user_manifest("pd"))
    args = ["attach", "disk", "--type", "pd", "--manifest", path, "--mount-point", "/d", *WHERE]
    planned = env.dry(args, capsys)
    assert list(planned) == ["addon", "pv", "pvc", "record"]
    assert env.google.calls == [] and env.kube.requests == []  # the dry-run read nothing
    code, _, err = env.run(args, capsys)
    assert code == 0, err
    applied = env.applied()
    written = [d for d in yaml.safe_load_all(user_manifest("pd")) if d]
    assert applied[PV] == planned["pv"]["manifest"] == written[0]  # as the user wrote it
    assert applied[PVC] == planned["pvc"]["manifest"] == written[1]
    for obj in (applied[PV], applied[PVC], applied[RECORD]):
        validate_core(obj)
    record = from_configmap(applied[RECORD])
    assert (record.pvc, record.attributes["pv"]) == ("xpk-pd-pvc", "xpk-pd-pv")
    assert record.source == "projects/my-project/zones/us-east5-b/disks/test-storage"
    assert not record.readonly  # the file's ReadWriteOnce, not xcli's read-only disks
    assert env.google.addons == {"gcePersistentDiskCsiDriverConfig": True}
    code, out, _ = env.run(["list", *WHERE, "-o", "json"], capsys)
    assert [r["name"] for r in json.loads(out)] == ["disk"]
    code, _, err = env.run(["detach", "disk", *WHERE], capsys)  # the file's PV and PVC go
    assert code == 0, err
    assert not {PV, PVC, RECORD} & set(env.kube.objects)


@pytest.mark.parametrize(
    ("edit", "says"),
    [
        (lambda t: t.replace("36000Gi", "STORAGE_SIZE", 1), "'STORAGE_SIZE' is not a Kubernetes"),
        (lambda t: t.replace("pd.csi.storage.gke.io", "lustre.csi.storage.gke.io"),
         "is of CSI driver lustre.csi.storage.gke.io, not pd.csi.storage.gke.io (--type pd)"),
        (lambda t: t + "\n---\napiVersion: storage.k8s.io/v1\nkind: StorageClass\n",
         "holds storage.k8s.io/v1 StorageClass: xcli applies a v1 PersistentVolume"),
        (lambda t: t.split("---")[0], "holds no PersistentVolumeClaim"),
        (lambda t: t.replace("name: xpk-pd-pvc", "name: other", 1), "is reserved for claim"),
        (lambda t: t.replace("fsType: ext4", "fsType: [ext4]"), "at `$.spec.csi.fsType`"),
        (lambda t: "a: [", "is not YAML (line"),
    ],
)  # fmt: skip
def test_a_manifest_xcli_cannot_apply_is_refused_before_anything_is_sent(
    env: Env,  # noqa: F811
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    edit: object,
    says: str,
) -> None:
    path = _file(tmp_path, edit(user_manifest("pd")))  # type: ignore[operator]
    code, _, err = env.run(["attach", "disk", "--type", "pd", "--manifest", path, *WHERE], capsys)
    lines = err.splitlines()
    assert code == 1 and lines[0].startswith("error: --manifest ") and says in lines[0], err
    assert lines[1].startswith("hint: ")
    assert env.google.calls == [] and env.kube.requests == []


def test_a_source_flag_beside_the_manifest_is_refused(
    env: Env,  # noqa: F811
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = _file(tmp_path, user_manifest("pd"))
    args = ["attach", "disk", "--type", "pd", "--manifest", path, "--disk", "d1", *WHERE]
    code, _, err = env.run([*args, "--mount-options", "ro"], capsys)
    assert code == 1 and err.splitlines() == [
        "error: --disk goes without --manifest: the file's PersistentVolume names the source",
        "hint: drop --disk, or drop --manifest",
        "error: --mount-options goes without --manifest: the file's PersistentVolume names "
        "the mount options",
        "hint: drop --mount-options, or drop --manifest",
    ]
