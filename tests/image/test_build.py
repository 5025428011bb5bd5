"""The pure image builder: references, .dockerignore, what a folder may hold, reproducible
layers, the layering, platform choice and composition, and the build's plan."""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import os
import socket
import tarfile
from pathlib import Path

import pytest

from xcli.errors import UserError
from xcli.image import build, context, ignore, oci, reference
from xcli.image.layers import BIG_FILE, Layer, Store, groups
from xcli.plan.model import Plan
from xcli.plan.render import plan_json


@pytest.mark.parametrize(
    ("text", "host", "name", "ref"),
    [
        ("python:3.10", "index.docker.io", "library/python", "3.10"),
        ("docker.io/user/img", "index.docker.io", "user/img", "latest"),
        ("us-docker.pkg.dev/p/r/img:v1", "us-docker.pkg.dev", "p/r/img", "v1"),
        ("localhost:5000/a/b@sha256:" + "a" * 64, "localhost:5000", "a/b", "sha256:" + "a" * 64),
        ("gcr.io/proj/img", "gcr.io", "proj/img", "latest"),
    ],
)
def test_references(text: str, host: str, name: str, ref: str) -> None:
    image = reference.parse(text)
    assert (image.host, image.name, image.reference) == (host, name, ref)


def test_scheme_and_api_host() -> None:
    assert reference.parse("python").api_host == "registry-1.docker.io"
    assert reference.parse("python").scheme == "https"
    assert reference.parse("127.0.0.1:5000/x").scheme == "http"


@pytest.mark.parametrize("text", ["", "Python:3", "a/b:bad tag", "x@sha256:12", "a//b", "h:99x/a"])
def test_invalid_references_are_one_line(text: str) -> None:
    with pytest.raises(UserError) as info:
        reference.parse(text, what="--base-docker-image")
    assert info.value.message.startswith("invalid --base-docker-image reference")
    assert "\n" not in info.value.message and info.value.hint


@pytest.mark.parametrize(
    ("patterns", "path", "out"),
    [
        ("*.pyc", "a.pyc", True),
        ("*.pyc", "sub/a.pyc", False),  # `*` does not cross '/'
        ("**/*.pyc", "sub/deep/a.pyc", True),
        ("**/*.pyc", "a.pyc", True),  # `**` is also no directory at all
        ("data", "data/x/y.bin", True),  # a parent matched
        ("data\n!data/keep.txt", "data/keep.txt", False),
        ("data\n!data/keep.txt", "data/other", True),
        ("/build", "build/x", True),  # leading / dropped
        ("a?c", "abc", True),
        ("a?c", "a/c", False),
        ("[ab]x", "bx", True),
        ("# data\n", "data", False),
        ("docs/../secret", "secret", True),  # cleaned like filepath.Clean
        ("*\n!Dockerfile", "Dockerfile", False),
    ],
)
def test_dockerignore(patterns: str, path: str, out: bool) -> None:
    assert ignore.excluded(path, ignore.parse(patterns)) is out


def test_missing_folder_and_not_a_folder(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="does not exist"):
        context.scan(tmp_path / "nope")
    (tmp_path / "f").write_text("x")
    with pytest.raises(UserError, match="is not a folder"):
        context.scan(tmp_path / "f")


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads every file")
def test_unreadable_file_is_named(tmp_path: Path) -> None:
    (tmp_path / "secret.key").write_text("x")
    (tmp_path / "secret.key").chmod(0)
    with pytest.raises(UserError, match=r"secret\.key is not readable"):
        context.scan(tmp_path)


def test_socket_and_outside_symlink_are_refused_by_name(tmp_path: Path) -> None:
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(tmp_path / "agent.sock"))
    try:
        with pytest.raises(UserError, match=r"agent.sock is a socket") as info:
            context.scan(tmp_path)
        assert "dockerignore" in info.value.hint
        (tmp_path / ".dockerignore").write_text("*.sock\n")
        context.scan(tmp_path)  # listed: fine
    finally:
        sock.close()
    (tmp_path / "escape").symlink_to("../../etc/passwd")
    with pytest.raises(UserError, match="outside the script folder"):
        context.scan(tmp_path)
    (tmp_path / "escape").unlink()
    (tmp_path / "abs").symlink_to("/etc/passwd")
    with pytest.raises(UserError, match="outside the script folder"):
        context.scan(tmp_path)
    (tmp_path / "abs").unlink()
    os.mkfifo(tmp_path / "pipe")
    with pytest.raises(UserError, match="pipe is a FIFO or device file"):
        context.scan(tmp_path)


def test_size_limit_counts_after_dockerignore(tmp_path: Path) -> None:
    with (tmp_path / "huge.bin").open("wb") as f:  # sparse: costs no disk
        f.truncate(context.MAX_BYTES + 1)
    with pytest.raises(UserError, match="over the 2048 MiB limit") as info:
        context.scan(tmp_path)
    assert ".dockerignore" in info.value.hint
    (tmp_path / ".dockerignore").write_text("huge.bin\n")
    assert context.scan(tmp_path).excluded == ("huge.bin",)


def _tree(root: Path) -> Path:
    (root / "b").mkdir(parents=True)
    (root / "b" / "x.py").write_text("x")
    (root / "a.sh").write_text("#!/bin/sh")
    (root / "a.sh").chmod(0o750)
    (root / "l").symlink_to("a.sh")
    (root / ("n" * 120)).write_text("long name")  # PAX extended header
    return root


def test_layers_are_reproducible_and_normalised(tmp_path: Path) -> None:
    one = Store(tmp_path / "s1").build(context.scan(_tree(tmp_path / "one")))
    two_root = _tree(tmp_path / "two")
    os.utime(two_root / "b" / "x.py", (5, 5))
    two = Store(tmp_path / "s2").build(context.scan(two_root))
    assert [(x.diff_id, x.digest) for x in one] == [(x.diff_id, x.digest) for x in two]
    blob = (tmp_path / "s1" / "blobs" / "sha256" / one[0].digest[7:]).read_bytes()
    assert hashlib.sha256(blob).hexdigest() == one[0].digest[7:]
    assert blob[4:8] == b"\0\0\0\0"  # gzip mtime 0
    with tarfile.open(fileobj=io.BytesIO(gzip.decompress(blob))) as tar:
        members = tar.getmembers()
    names = [m.name for m in members]
    assert names[:2] == ["app", "app/a.sh"] and "app/b" in names
    assert names.index("app/b") < names.index("app/b/x.py")
    modes = {m.name: m.mode for m in members}
    assert (modes["app"], modes["app/a.sh"], modes["app/b/x.py"]) == (0o755, 0o755, 0o644)
    assert all(m.mtime == 0 and m.uid == 0 and not m.uname for m in members)


def test_store_reuses_unchanged_layers(tmp_path: Path) -> None:
    root = _tree(tmp_path / "src")
    store = Store(tmp_path / "s")
    first = store.build(context.scan(root))
    blob = store.blob(first[0].digest)
    blob.write_bytes(blob.read_bytes())  # same size: kept
    read: list[int] = []
    assert store.build(context.scan(root), read.append) == first
    assert read == []  # nothing read again
    (root / "b" / "x.py").write_text("changed")
    assert store.build(context.scan(root), read.append) != first
    assert read


def test_layering_buckets_by_path_and_big_files_alone() -> None:
    small = [context.Entry(f"f{i}", "file", 0o644, size=100_000) for i in range(400)]
    big = [context.Entry(f"w{i}.bin", "file", 0o644, size=BIG_FILE) for i in range(10)]
    parts = groups([*small, *big])
    names = [n for n, _ in parts]
    assert sum(n.startswith("file:") for n in names) == 8  # MAX_BIG alone, two in buckets
    bucket_names = [n for n in names if n.startswith("bucket")]
    assert all(n.endswith("-of-16") for n in bucket_names)  # 40 MB + 64 MiB: 16 x 8 MiB
    again = groups([*small, *big])
    assert again == parts
    # one file changed: only its bucket's content changes
    changed = [*small[:5], context.Entry("f5", "file", 0o644, size=100_001), *small[6:], *big]
    diff = [a for a, b in zip(groups(changed), parts, strict=True) if a != b]
    assert len(diff) == 1 and any(e.path == "f5" for e in diff[0][1])


INDEX = {
    "mediaType": oci.OCI_INDEX,
    "manifests": [
        {
            "digest": "sha256:att",
            "mediaType": oci.OCI_MANIFEST,
            "platform": {"os": "unknown", "architecture": "unknown"},
            "annotations": {"vnd.docker.reference.type": "attestation-manifest"},
        },
        {
            "digest": "sha256:arm",
            "mediaType": oci.OCI_MANIFEST,
            "platform": {"os": "linux", "architecture": "arm64", "variant": "v8"},
        },
        {
            "digest": "sha256:amd",
            "mediaType": oci.OCI_MANIFEST,
            "platform": {"os": "linux", "architecture": "amd64"},
        },
    ],
}


def test_platform_choice() -> None:
    assert oci.choose(INDEX, "linux/amd64", "b")["digest"] == "sha256:amd"
    assert oci.choose(INDEX, "linux/arm64", "b")["digest"] == "sha256:arm"
    with pytest.raises(UserError, match=r"has no linux/s390x image \(it has linux/arm64/v8"):
        oci.choose(INDEX, "linux/s390x", "b")
    no_platform = {"manifests": [{"digest": "sha256:x", "mediaType": oci.DOCKER_MANIFEST}]}
    assert oci.choose(no_platform, "linux/amd64", "b")["digest"] == "sha256:x"
    with pytest.raises(UserError, match="is linux/amd64, the cluster runs linux/arm64"):
        oci.check_config_platform({"os": "linux", "architecture": "amd64"}, "linux/arm64", "b")


def test_compose_keeps_the_family_and_the_base() -> None:
    base_config = json.dumps(
        {
            "architecture": "amd64",
            "os": "linux",
            "config": {"Entrypoint": ["/e"], "Env": ["A=1"], "User": "me"},
            "rootfs": {"type": "layers", "diff_ids": ["sha256:b"]},
        }
    ).encode()
    manifest = {
        "schemaVersion": 2,
        "mediaType": oci.DOCKER_MANIFEST,
        "config": {
            "mediaType": "application/vnd.docker.container.image.v1+json",
            "digest": "sha256:old",
            "size": 1,
        },
        "layers": [{"mediaType": oci.DOCKER_LAYER, "digest": "sha256:bl", "size": 9}],
    }
    layer = Layer("bucket-00-of-1", "sha256:d", "sha256:z", 42, 3)
    config_bytes, manifest_bytes = oci.compose(
        manifest, oci.DOCKER_MANIFEST, base_config, [layer], "--script-dir"
    )
    config, new = json.loads(config_bytes), json.loads(manifest_bytes)
    assert config["config"] == {
        "Entrypoint": ["/e"],
        "Env": ["A=1"],
        "User": "me",
        "WorkingDir": "/app",
    }
    assert config["rootfs"]["diff_ids"] == ["sha256:b", "sha256:d"]
    assert config["history"][-1]["created"] == "1970-01-01T00:00:00Z"
    assert new["config"]["digest"] == oci.digest_of(config_bytes)
    assert new["config"]["mediaType"] == manifest["config"]["mediaType"]
    assert new["layers"][-1] == {"mediaType": oci.DOCKER_LAYER, "digest": "sha256:z", "size": 42}


def test_build_plan_reads_first_and_the_image_is_symbolic(tmp_path: Path) -> None:
    root = _tree(tmp_path / "src")
    request = build.BuildRequest(
        root, "python:3.10", "linux/amd64", "us-central1-docker.pkg.dev/proj/xcli", "ann-runner"
    )
    built = build.prepare(request, Store(tmp_path / "s"))
    assert [s.kind for s in built.steps] == ["ar_repository", "image_base", "image_push"]
    assert str(built.image) == "us-central1-docker.pkg.dev/proj/xcli/ann-runner@${build.digest}"
    data = json.loads(plan_json(Plan("b", built.steps)))["plan"]
    assert data[0]["repository"] == "projects/proj/locations/us-central1/repositories/xcli"
    assert [r["method"] for r in data[0]["requests"]] == ["GET", "POST"]
    assert data[1]["requests"][0]["url"] == (
        "https://registry-1.docker.io/v2/library/python/manifests/3.10"
    )
    push = data[2]
    assert push["after"] == ["image-repository", "image-base"]
    assert [x["digest"] for x in push["layers"]] == [x.digest for x in built.layers]
    assert "store" not in push  # a local path: not part of the plan's text
    # same folder, same tag
    again = build.prepare(request, Store(tmp_path / "s"))
    assert again.steps[-1].tag == built.steps[-1].tag  # type: ignore[attr-defined]


def test_platform_and_names() -> None:
    assert build.platform_for("gb200-4") == "linux/arm64"
    assert build.platform_for("v6e-256") == "linux/amd64"
    assert build.image_name("Ann.Lee@corp") == "ann-lee-corp-runner"
    assert build.default_repository("p", "europe-west4") == "europe-west4-docker.pkg.dev/p/xcli"
    bad = build.BuildRequest(Path("."), "python", "linux/amd64", "reg.example/x:tag", "n")
    with pytest.raises(UserError, match="invalid --image-repository reference"):
        build.target(bad)


def test_splice_puts_the_build_first_and_the_image_after_the_push(tmp_path: Path) -> None:
    from xcli.image.splice import splice
    from xcli.plan.model import resolve
    from xcli.plan.steps import K8sApply, LocalAction

    root = _tree(tmp_path / "src")
    request = build.BuildRequest(root, "python", "linux/amd64", "127.0.0.1:5000/t", "me-runner")
    built = build.prepare(request, Store(tmp_path / "s"))
    text = str(built.image)
    check = LocalAction(id="check", summary="c", action="noop", args={})
    apply = K8sApply(
        id="jobset",
        summary="j",
        after=("check",),
        cluster="c",
        manifest={"spec": {"containers": [{"image": text, "name": "jax-tpu"}]}},
    )
    plan = splice(built, Plan("create", (check, apply)))
    assert [s.id for s in plan.steps] == ["image-base", "build", "check", "jobset"]
    assert plan.steps[2] is check  # untouched: runs while the image is pushed
    assert plan.steps[3].after == ("check", "build")
    manifest = plan.steps[3].manifest  # type: ignore[attr-defined]
    live = resolve(manifest, {"build": {"digest": "sha256:abc"}})
    assert live["spec"]["containers"][0]["image"] == "127.0.0.1:5000/t/me-runner@sha256:abc"
    printed = json.loads(plan_json(plan))["plan"][3]
    assert printed["manifest"]["spec"]["containers"][0]["image"] == text


def test_content_that_does_not_compress_is_stored(tmp_path: Path) -> None:
    from xcli.image.layers import gzip_level

    root = tmp_path / "src"
    root.mkdir()
    (root / "weights.bin").write_bytes(os.urandom(300_000))
    (root / "code.py").write_text("x = 1\n" * 50_000)
    scanned = context.scan(root)
    by_path = {e.path: e for e in scanned.entries}
    assert gzip_level(root, [by_path["weights.bin"]]) == 0
    assert gzip_level(root, [by_path["code.py"]]) == 1
    (layer,) = Store(tmp_path / "s").build(context.scan(root))
    blob = (tmp_path / "s" / "blobs" / "sha256" / layer.digest[7:]).read_bytes()
    assert gzip.decompress(blob)  # still gzip


def test_a_layer_record_cut_short_is_built_again(tmp_path: Path) -> None:
    """Records and kept blobs are written without fsync (a cache, checked when read): one that
    a crash left empty or half-written is built again, never trusted."""
    root = _tree(tmp_path / "src")
    store = Store(tmp_path / "s")
    first = store.build(context.scan(root))
    records = sorted((tmp_path / "s" / "layers").glob("*.json"))
    assert records
    records[0].write_text("")
    records[-1].write_text('{"name": "bucket-00-of-1", "diff_id": ')
    read: list[int] = []
    assert store.build(context.scan(root), read.append) == first
    assert read  # read and packed again
