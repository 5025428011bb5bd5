"""The registry client's edges against `responses`: resuming where the registry says it kept
bytes (the distribution spec's status GET), a missing base, a base without the platform."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
import requests
import responses

from xcli.errors import CloudError, UserError
from xcli.gateways.registry.client import Registry
from xcli.gateways.registry.push import ImageHandlers
from xcli.image import oci
from xcli.image.reference import parse
from xcli.image.steps import ImageBase
from xcli.plan.contract import NullReporter, StepContext

HOST = "https://reg.example.com"
IMAGE = parse("reg.example.com/team/app")


@responses.activate
def test_a_dropped_patch_goes_on_from_the_range_the_registry_kept(tmp_path: Path) -> None:
    blob = tmp_path / "blob"
    blob.write_bytes(b"a" * 25)
    loc = f"{HOST}/v2/team/app/blobs/uploads/u1"
    patches: list[str] = []

    def patch(request: requests.PreparedRequest) -> tuple[int, dict[str, str], str]:
        patches.append(request.headers["Content-Range"])
        if len(patches) == 2:
            raise requests.ConnectionError("connection reset")
        return (202, {"Location": loc}, "")

    responses.add_callback("PATCH", loc, callback=patch)
    responses.get(loc, status=204, headers={"Range": "0-14", "Location": loc})
    responses.put(f"{loc}?digest=sha256:d", status=201)
    reg = Registry(chunk=10)
    reg.upload(IMAGE, "sha256:d", blob, loc)
    assert patches == ["0-9", "10-19", "15-24"]  # resumed at byte 15, as the registry said
    assert reg.resumed == [("sha256:d", 15)]


@responses.activate
def test_a_missing_base_is_one_line() -> None:
    responses.get(
        f"{HOST}/v2/team/app/manifests/latest",
        status=404,
        json={"errors": [{"code": "MANIFEST_UNKNOWN", "message": "manifest unknown"}]},
    )
    step = ImageBase(id="base", summary="s", image=IMAGE, platform="linux/amd64")
    with pytest.raises(UserError) as info:
        ImageHandlers().read_base(step, StepContext(step, NullReporter(), threading.Event(), {}))
    assert info.value.message == (
        "base image reg.example.com/team/app:latest not found (404 MANIFEST_UNKNOWN)"
    )


@responses.activate
def test_a_base_without_the_platform_is_refused_before_any_write() -> None:
    index = {
        "schemaVersion": 2,
        "mediaType": oci.OCI_INDEX,
        "manifests": [
            {
                "mediaType": oci.OCI_MANIFEST,
                "digest": "sha256:" + "1" * 64,
                "size": 1,
                "platform": {"os": "linux", "architecture": "amd64"},
            }
        ],
    }
    responses.get(
        f"{HOST}/v2/team/app/manifests/latest", body=json.dumps(index), content_type=oci.OCI_INDEX
    )
    step = ImageBase(id="base", summary="s", image=IMAGE, platform="linux/arm64")
    with pytest.raises(UserError, match="has no linux/arm64 image"):
        ImageHandlers().read_base(step, StepContext(step, NullReporter(), threading.Event(), {}))
    assert [c.request.method for c in responses.calls] == ["GET"]


@responses.activate
def test_a_location_into_another_hosts_private_network_is_refused() -> None:
    from xcli.gateways.registry.client import RegistryError

    responses.post(
        f"{HOST}/v2/team/app/blobs/uploads/",
        status=202,
        headers={"Location": "http://10.0.0.7:5000/steal"},
    )
    reg = Registry()
    location = reg.start(IMAGE, "sha256:d")
    assert location == "http://10.0.0.7:5000/steal"
    with pytest.raises(RegistryError, match="an internal address of another host"):
        reg.request("PATCH", IMAGE, location, scope="x")
    assert len(responses.calls) == 1  # nothing was sent there


@responses.activate
def test_a_docker_hub_name_that_is_not_there_says_where_it_was_looked_for() -> None:
    responses.get(
        "https://registry-1.docker.io/v2/library/maxtext_base_image/manifests/latest",
        status=404,
        json={"errors": [{"code": "MANIFEST_UNKNOWN"}]},
    )
    image = parse("maxtext_base_image")
    with pytest.raises(UserError) as info:
        Registry().manifest(image, "latest", oci.ACCEPT)
    assert "looked up on Docker Hub" in info.value.hint
    assert "REGION-docker.pkg.dev/PROJECT/REPO/maxtext_base_image" in info.value.hint


@responses.activate
def test_a_small_blob_goes_whole_and_a_dropped_put_starts_a_new_session(tmp_path: Path) -> None:
    blob = tmp_path / "blob"
    blob.write_bytes(b"b" * 25)
    first, second = f"{HOST}/v2/team/app/blobs/uploads/u1", f"{HOST}/v2/team/app/blobs/uploads/u2"
    responses.put(f"{first}?digest=sha256:d", body=requests.ConnectionError("reset"))
    responses.post(f"{HOST}/v2/team/app/blobs/uploads/", status=202, headers={"Location": second})
    responses.put(f"{second}?digest=sha256:d", status=201)
    reg = Registry(chunk=100)
    reg.upload(IMAGE, "sha256:d", blob, first)
    methods = [(c.request.method, c.request.url.rsplit("/", 1)[-1]) for c in responses.calls]
    assert methods == [("PUT", "u1?digest=sha256:d"), ("POST", ""), ("PUT", "u2?digest=sha256:d")]
    assert responses.calls[2].request.body == b"b" * 25
    assert reg.sent == 25 and reg.resumed == [("sha256:d", 0)]


@responses.activate
def test_the_base_is_read_once_then_only_its_tag_is_resolved(tmp_path: Path) -> None:
    config = json.dumps({"os": "linux", "architecture": "amd64", "config": {}}).encode()
    config_digest = oci.digest_of(config)
    child = json.dumps({
        "schemaVersion": 2, "mediaType": oci.OCI_MANIFEST,
        "config": {"mediaType": "application/vnd.oci.image.config.v1+json",
                   "digest": config_digest, "size": len(config)},
        "layers": [],
    }).encode()  # fmt: skip
    index = json.dumps({"schemaVersion": 2, "mediaType": oci.OCI_INDEX, "manifests": [
        {"mediaType": oci.OCI_MANIFEST, "digest": oci.digest_of(child), "size": len(child),
         "platform": {"os": "linux", "architecture": "amd64"}}]}).encode()  # fmt: skip
    v2 = f"{HOST}/v2/team/app"
    responses.head(
        f"{v2}/manifests/latest", headers={"Docker-Content-Digest": oci.digest_of(index)}
    )
    responses.get(f"{v2}/manifests/latest", body=index, content_type=oci.OCI_INDEX)
    responses.get(f"{v2}/manifests/{oci.digest_of(child)}", body=child)
    responses.get(f"{v2}/blobs/{config_digest}", body=config)
    step = ImageBase(
        id="base", summary="s", image=IMAGE, platform="linux/amd64", store=str(tmp_path)
    )
    handlers = ImageHandlers()
    ctx = StepContext(step, NullReporter(), threading.Event(), {})
    first = handlers.read_base(step, ctx)
    assert [c.request.method for c in responses.calls] == ["HEAD", "GET", "GET", "GET"]
    responses.calls.reset()
    assert handlers.read_base(step, ctx) == first
    assert [c.request.method for c in responses.calls] == ["HEAD"]  # no pull counted


def _read_base(image: str) -> None:
    step = ImageBase(id="base", summary="s", image=parse(image), platform="linux/amd64")
    handler = ImageHandlers().handlers()["image_base"]
    handler(step, StepContext(step, NullReporter(), threading.Event(), {}))


def test_a_registry_nobody_answers_on_is_one_line() -> None:
    """A real connection refused (nothing listens on the port): one line naming the host and
    why, not requests' MaxRetryError text (issue 37, Faults)."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again: nothing listens there
    with pytest.raises(CloudError) as info:
        _read_base(f"127.0.0.1:{port}/team/app:1")
    assert info.value.message == f"cannot reach registry 127.0.0.1:{port}: connection refused"
    assert "HTTPS_PROXY" in info.value.hint


@responses.activate
@pytest.mark.parametrize("where", ["token", "manifest"])
def test_a_page_instead_of_json_is_one_line(where: str) -> None:
    page = "<html>Sign in to the proxy</html>"
    if where == "token":
        responses.get(
            f"{HOST}/v2/team/app/manifests/latest",
            status=401,
            headers={"WWW-Authenticate": f'Bearer realm="{HOST}/token",service="reg"'},
        )
        responses.get(f"{HOST}/token", body=page, content_type="text/html")
    else:
        responses.get(f"{HOST}/v2/team/app/manifests/latest", body=page)
    with pytest.raises(CloudError) as info:
        _read_base("reg.example.com/team/app")
    assert info.value.message.startswith(
        "registry reg.example.com answered something that is not the registry API's JSON"
    )
    assert "\n" not in info.value.message and info.value.hint
