"""Image builds against a real registry (Debian's docker-registry on loopback): what is pushed,
that it unpacks to the folder, reproducibility, the fast inner loop, resume, auth."""

from __future__ import annotations

import gzip
import io
import json
import os
import shutil
import tarfile
from pathlib import Path
from typing import Any

import pytest
import requests

from tests.support.registry import (
    BASE_CONFIG,
    GOOD,
    DroppingProxy,
    LocalRegistry,
    push_base,
)
from xcli.errors import XcliError
from xcli.execute.live import LiveExecutor
from xcli.execute.result import RunResult
from xcli.gateways.registry.client import Credentials, anonymous
from xcli.gateways.registry.push import ImageHandlers
from xcli.image import build
from xcli.image.layers import Store
from xcli.plan.model import Plan

ACCEPT = "application/vnd.oci.image.manifest.v1+json"


def make_folder(root: Path) -> Path:
    (root / "pkg").mkdir(parents=True)
    (root / "train.py").write_text("print('train')\n")
    (root / "run.sh").write_text("#!/bin/sh\necho run\n")
    (root / "run.sh").chmod(0o755)
    (root / "pkg" / "model.py").write_text("W = 1\n")
    (root / "pkg" / "__pycache__").mkdir()
    (root / "pkg" / "__pycache__" / "model.cpython-311.pyc").write_bytes(b"\0pyc")
    (root / "data").mkdir()
    (root / "data" / "big.bin").write_bytes(b"x" * 1000)
    (root / "data" / "keep.txt").write_text("kept\n")
    (root / "latest.py").symlink_to("train.py")
    (root / ".dockerignore").write_text("# comment\n**/__pycache__\ndata\n!data/keep.txt\n")
    return root


def run(
    folder: Path,
    base: str,
    repository: str,
    cache: Path,
    *,
    credentials: Credentials = anonymous,
    platform: str = "linux/amd64",
) -> tuple[build.Build, RunResult]:
    request = build.BuildRequest(folder, base, platform, repository, "me-runner")
    built = build.prepare(request, Store(cache))
    result = LiveExecutor(ImageHandlers(credentials).handlers()).run(Plan("build", built.steps))
    return built, result


def outputs(result: RunResult) -> dict[str, Any]:
    for step in result.results.values():
        if step.error is not None:
            raise step.error
    return result.results["build"].outputs


def get(host: str, name: str, kind: str, ref: str) -> Any:
    resp = requests.get(
        f"http://{host}/v2/{name}/{kind}/{ref}", headers={"Accept": ACCEPT}, timeout=10
    )
    assert resp.status_code == 200, resp.text
    return resp.json() if kind == "manifests" else resp.content


@pytest.fixture(scope="module")
def base(registry: LocalRegistry) -> str:
    push_base(registry.host, "library/base", "1")
    return f"{registry.host}/library/base:1"


def test_push_keeps_the_base_and_unpacks_to_the_folder(
    registry: LocalRegistry,
    base: str,
    tmp_path: Path,
) -> None:
    folder = make_folder(tmp_path / "src")
    built, result = run(folder, base, f"{registry.host}/team", tmp_path / "cache")
    out = outputs(result)
    manifest = get(registry.host, "team/me-runner", "manifests", out["digest"])
    config = json.loads(get(registry.host, "team/me-runner", "blobs", manifest["config"]["digest"]))
    assert (config["architecture"], config["os"]) == ("amd64", "linux")
    assert config["config"]["WorkingDir"] == "/app"
    for key in ("Entrypoint", "Cmd", "Env", "User"):
        assert config["config"][key] == BASE_CONFIG[key]
    assert len(config["rootfs"]["diff_ids"]) == 1 + len(built.layers)
    assert len(config["history"]) == 1 + len(built.layers)
    assert manifest["layers"][1:] == [
        {
            "mediaType": "application/vnd.oci.image.layer.v1.tar+gzip",
            "digest": x.digest,
            "size": x.size,
        }
        for x in built.layers
    ]
    # unpack every new layer: exactly the folder minus .dockerignore, symlink kept as a link
    found: dict[str, Any] = {}
    for layer in manifest["layers"][1:]:
        blob = get(registry.host, "team/me-runner", "blobs", layer["digest"])
        with tarfile.open(fileobj=io.BytesIO(gzip.decompress(blob))) as tar:
            for m in tar.getmembers():
                assert (m.mtime, m.uid, m.gid, m.uname, m.gname) == (0, 0, 0, "", "")
                if m.isfile():
                    found[m.name] = (tar.extractfile(m).read(), m.mode)  # type: ignore[union-attr]
                elif m.issym():
                    found[m.name] = ("->", m.linkname)
    assert found == {
        "app/.dockerignore": ((folder / ".dockerignore").read_bytes(), 0o644),
        "app/train.py": (b"print('train')\n", 0o644),
        "app/run.sh": (b"#!/bin/sh\necho run\n", 0o755),
        "app/pkg/model.py": (b"W = 1\n", 0o644),
        "app/data/keep.txt": (b"kept\n", 0o644),
        "app/latest.py": ("->", "train.py"),
    }
    assert set(built.context.excluded) >= {"data/big.bin", "pkg/__pycache__"}
    assert out["image"] == f"{registry.host}/team/me-runner@{out['digest']}"


def test_arm64_child_is_chosen(registry: LocalRegistry, base: str, tmp_path: Path) -> None:
    folder = make_folder(tmp_path / "src")
    _, result = run(folder, base, f"{registry.host}/arm", tmp_path / "c", platform="linux/arm64")
    out = outputs(result)
    manifest = get(registry.host, "arm/me-runner", "manifests", out["digest"])
    config = json.loads(get(registry.host, "arm/me-runner", "blobs", manifest["config"]["digest"]))
    assert config["architecture"] == "arm64"


def test_same_digest_twice_and_from_another_checkout_without_uploading(
    registry: LocalRegistry,
    base: str,
    tmp_path: Path,
) -> None:
    folder = make_folder(tmp_path / "one")
    repo = f"{registry.host}/again"
    first, r1 = run(folder, base, repo, tmp_path / "cache1")
    o1 = outputs(r1)
    assert o1["blobs_uploaded"] == len(first.layers) + 1  # the layers and the config
    assert o1["blobs_mounted"] == 1  # the base layer, same registry
    _, r2 = run(folder, base, repo, tmp_path / "cache1")
    o2 = outputs(r2)
    assert o2["digest"] == o1["digest"]
    assert (o2["uploaded_bytes"], o2["blobs_uploaded"], o2["blobs_mounted"]) == (0, 0, 0)
    other = tmp_path / "elsewhere" / "checkout"
    shutil.copytree(folder, other, symlinks=True)
    os.utime(other / "train.py", (1, 1))  # other mtimes: the layers do not care
    third, r3 = run(other, base, repo, tmp_path / "cache2")
    assert [x.diff_id for x in third.layers] == [x.diff_id for x in first.layers]
    assert outputs(r3)["digest"] == o1["digest"]


def test_one_file_change_uploads_one_layer(
    registry: LocalRegistry,
    base: str,
    tmp_path: Path,
) -> None:
    folder = tmp_path / "many"
    for i in range(600):  # 600 files of 40 kB: 24 MB, four buckets of 8 MiB
        (folder / f"d{i % 7}").mkdir(parents=True, exist_ok=True)
        (folder / f"d{i % 7}" / f"f{i}.bin").write_bytes(os.urandom(40_000))
    repo = f"{registry.host}/loop"
    first, r1 = run(folder, base, repo, tmp_path / "cache")
    cold = outputs(r1)["uploaded_bytes"]
    assert len(first.layers) == 4
    (folder / "d3" / "f3.bin").write_bytes(os.urandom(40_000))
    second, r2 = run(folder, base, repo, tmp_path / "cache")
    o2 = outputs(r2)
    changed = [b for a, b in zip(first.layers, second.layers, strict=False) if a.digest != b.digest]
    assert len(changed) == 1
    assert o2["blobs_uploaded"] == 2  # the changed layer and the config (its diff_ids)
    config_size = o2["uploaded_bytes"] - changed[0].size
    assert 0 < config_size < 2000
    assert o2["uploaded_bytes"] < cold / 3


def test_upload_resumes_after_a_dropped_connection(
    registry: LocalRegistry,
    base: str,
    tmp_path: Path,
) -> None:
    proxy = DroppingProxy(registry.port, after=600_000)
    try:
        folder = tmp_path / "big"
        folder.mkdir()
        (folder / "weights.bin").write_bytes(os.urandom(3_000_000))
        from xcli.gateways.registry import client as gateway

        chunk, gateway.CHUNK = gateway.CHUNK, 1_000_000  # a 3 MB layer in three chunks
        try:
            _, result = run(folder, base, f"127.0.0.1:{proxy.port}/resume", tmp_path / "c")
        finally:
            gateway.CHUNK = chunk
        out = outputs(result)
    finally:
        proxy.close()
    assert proxy.dropped == 1
    assert out["resumed_uploads"] >= 1
    manifest = get(registry.host, "resume/me-runner", "manifests", out["digest"])
    blob = get(registry.host, "resume/me-runner", "blobs", manifest["layers"][-1]["digest"])
    with tarfile.open(fileobj=io.BytesIO(gzip.decompress(blob))) as tar:
        member = tar.extractfile("app/weights.bin")
        assert member is not None
        assert member.read() == (folder / "weights.bin").read_bytes()


def test_token_auth_without_credentials_is_one_line_with_a_hint(
    token_registry: LocalRegistry,
    base: str,
    tmp_path: Path,
) -> None:
    folder = make_folder(tmp_path / "src")
    _, result = run(folder, base, f"{token_registry.host}/team", tmp_path / "c")
    error = result.results["build"].error
    assert isinstance(error, XcliError)
    assert "refused access to team/me-runner (401" in error.message
    assert "\n" not in error.message and error.hint
    # with credentials: tokens asked with the challenge's service and scope, Basic credentials
    token_registry.token_requests.clear()
    _, result = run(
        folder, base, f"{token_registry.host}/team", tmp_path / "c", credentials=lambda h: GOOD
    )
    out = outputs(result)
    assert out["blobs_uploaded"] >= 2
    assert token_registry.token_requests
    first = token_registry.token_requests[0]
    assert "service=test-registry" in first["path"]
    assert first["authorization"].startswith("Basic ")
    assert any(
        "scope=repository%3Ateam%2Fme-runner%3Apull%2Cpush" in r["path"]
        for r in token_registry.token_requests
    )


def test_real_jwt_scopes_pull_anonymously_and_push_with_credentials(
    jwt_registry: LocalRegistry, tmp_path: Path
) -> None:
    """distribution's `auth: token` checks each token's scopes: the push scope (and, for the
    mount, pull on the base's repository) must be asked for and granted."""
    reg = jwt_registry
    admin = reg.signer.token(
        [{"type": "repository", "name": "library/base", "actions": ["pull", "push"]}]
    )
    push_base(reg.host, "library/base", "1", headers={"Authorization": f"Bearer {admin}"})
    folder = make_folder(tmp_path / "src")
    base = f"{reg.host}/library/base:1"
    _, result = run(folder, base, f"{reg.host}/team", tmp_path / "c")  # anonymous
    error = result.results["build"].error
    assert isinstance(error, XcliError) and "refused access to team/me-runner (401" in error.message
    assert result.results["image-base"].status == "ok"  # anonymous pull of the base works
    _, result = run(folder, base, f"{reg.host}/team", tmp_path / "c", credentials=lambda h: GOOD)
    out = outputs(result)
    assert out["blobs_mounted"] == 1  # the base layer, mounted with pull on library/base
    assert any(
        "scope=repository%3Alibrary%2Fbase%3Apull" in r["path"]
        and "scope=repository%3Ateam%2Fme-runner%3Apull%2Cpush" in r["path"]
        for r in reg.token_requests
    )


class _Forgetful(requests.Session):
    """A registry front that answers a manifest PUT 201, with the right digest, and stores
    nothing (a broken proxy or a registry whose storage failed): the real registry sees
    every other request."""

    def request(self, method: str, url: str, *args: Any, **kw: Any) -> Any:  # type: ignore[override]
        if method == "PUT" and "/manifests/" in url:
            import hashlib

            resp = requests.Response()
            resp.status_code = 201
            digest = "sha256:" + hashlib.sha256(kw["data"]).hexdigest()
            resp.headers["Docker-Content-Digest"] = digest
            return resp
        return super().request(method, url, *args, **kw)


def test_a_manifest_the_registry_did_not_store_stops_the_push(
    registry: LocalRegistry, base: str, tmp_path: Path
) -> None:
    """Read back by digest before anything runs it: a 201 without a stored manifest fails
    the build step (so the workload after it is never created)."""
    folder = make_folder(tmp_path / "src")
    request = build.BuildRequest(folder, base, "linux/amd64", f"{registry.host}/lost", "me")
    built = build.prepare(request, Store(tmp_path / "cache"))
    handlers = ImageHandlers(anonymous, session=_Forgetful()).handlers()
    result = LiveExecutor(handlers).run(Plan("build", built.steps))
    error = result.results["build"].error
    assert isinstance(error, XcliError)
    assert error.message.startswith(
        f"registry {registry.host} accepted the manifest of lost/me but does not serve sha256:"
    )
    assert error.message.endswith(": it was not stored") and "\n" not in error.message
    assert "check the registry" in error.hint
