"""The local engine's side of an image build (issue 36): finding the daemon, and reading its
export tar into the layer store, each layer checked against the config's DiffIDs."""

from __future__ import annotations

import io
import json
import tarfile
from pathlib import Path

import pytest

from tests.support.engine import LocalImage, rootfs_tar, serve, sha
from xcli.errors import UserError
from xcli.gateways import engine
from xcli.image import archive
from xcli.image.layers import Store


def _image() -> LocalImage:
    return LocalImage("base:1", [rootfs_tar({"a": b"one\n" * 40}), rootfs_tar({"b": b"2\n"})])


def test_lookup_names_the_socket_that_answered_and_the_image_in_it(tmp_path: Path) -> None:
    for server in serve(tmp_path, _image()):
        env = {"DOCKER_HOST": f"unix://{server.socket}"}
        found = engine.lookup("base:1", env)
        assert found.image is not None and found.socket == str(server.socket)
        assert (found.image.id, found.image.layers, found.image.api) == (_image().id, 2, "1.44")
        missing = engine.lookup("other", env)
        assert missing.socket == str(server.socket) and missing.image is None
        assert missing.note("other").startswith("not in the local engine at unix://")
    none = engine.lookup("base:1", {"DOCKER_HOST": f"unix://{tmp_path / 'gone.sock'}"})
    assert none.socket == "" and none.image is None
    assert "no local Docker Engine or Podman socket answered" in none.note("base:1")
    # DOCKER_HOST over TCP is not read; without it Docker's socket, then rootless Podman's
    assert engine.candidates({"DOCKER_HOST": "tcp://1.2.3.4:2375"}) == ()
    assert engine.candidates({"XDG_RUNTIME_DIR": "/run/user/7"}) == (
        "/var/run/docker.sock",
        "/run/user/7/podman/podman.sock",
    )


@pytest.mark.parametrize("form", ["legacy", "oci", "podman"])
def test_every_form_gives_the_same_layers_and_a_second_read_the_same_bytes(
    tmp_path: Path, form: str
) -> None:
    image = _image()
    tar = tmp_path / "save.tar"
    tar.write_bytes(image.save(form))
    store = Store(tmp_path / "store")
    first = archive.read(tar, store, "base:1")
    assert json.loads(first.config)["rootfs"]["diff_ids"] == [sha(x) for x in image.layers]
    assert first.manifest["config"]["digest"] == image.id
    for layer in first.manifest["layers"]:
        assert store.blob(layer["digest"]).stat().st_size == layer["size"]
    # the same image ID and DiffIDs: from the store, without the tar
    again = archive.cached(store, image.id, [sha(x) for x in image.layers])
    assert again == first
    if form != "oci":  # uncompressed layers: compressed the same way on a fresh store
        fresh = archive.read(tar, Store(tmp_path / "fresh"), "base:1")
        assert fresh.manifest == first.manifest


def test_a_layer_that_is_not_its_diff_id_is_refused(tmp_path: Path) -> None:
    image = _image()
    out = io.BytesIO()
    with (
        tarfile.open(fileobj=io.BytesIO(image.save("legacy"))) as src,
        tarfile.open(fileobj=out, mode="w") as dst,
    ):
        for member in src.getmembers():
            data = src.extractfile(member).read() if member.isfile() else b""  # type: ignore[union-attr]
            if member.name.endswith("layer.tar"):
                data = rootfs_tar({"tampered": b"x"})
                member.size = len(data)
            dst.addfile(member, io.BytesIO(data))
    tar = tmp_path / "bad.tar"
    tar.write_bytes(out.getvalue())
    with pytest.raises(UserError) as err:
        archive.read(tar, Store(tmp_path / "store"), "base:1")
    assert (
        "is not an image archive: a layer's content is not its config's DiffID" in err.value.message
    )
