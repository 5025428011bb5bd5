"""The real tpu_v2 client over REST, and the raw v2alpha1 path, against `responses`.

The body each golden plan prints is what goes on the wire: for v2 the captured JSON (enums as
ints) parses into the same QueuedResource proto as the printed body; for v2alpha1 it is the
printed body byte for byte (as JSON).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
import responses
from google.cloud import tpu_v2
from google.oauth2.credentials import Credentials
from google.protobuf import json_format

from tests.support.discovery import check_request
from tests.support.qr_specs import SCENARIOS
from xcli.errors import CloudError
from xcli.gateways.tpu.api import TpuGateway
from xcli.providers.queued_resource.planner import plan_create

BASE = "https://tpu.googleapis.com/v2/projects/my-proj/locations/us-east5-b"
ALPHA = "https://tpu.googleapis.com/v2alpha1/projects/my-proj/locations/us-east5-b"
PARENT = "projects/my-proj/locations/us-east5-b"


def gateway() -> TpuGateway:
    return TpuGateway("us-east5-b", credentials=Credentials(token="t"))


def _proto(body: dict[str, Any]) -> dict[str, Any]:
    message = tpu_v2.QueuedResource.pb(tpu_v2.QueuedResource())
    json_format.ParseDict(body, message)
    return json_format.MessageToDict(message)


@pytest.mark.parametrize("name", sorted(SCENARIOS))
@responses.activate
def test_live_body_equals_dry_run_body(name: str) -> None:
    step = plan_create(SCENARIOS[name]).by_id()["create"]
    url = str(step.url)
    root = url.split("/queuedResources", 1)[0]  # the scenario's own version and zone
    parent = "projects/" + root.split("/projects/", 1)[1]
    responses.post(f"{root}/queuedResources", json={"name": f"{parent}/operations/op-1"})
    op = gateway().create_queued_resource(url, dict(step.body))  # type: ignore[arg-type]
    assert op == f"{parent}/operations/op-1"
    sent = responses.calls[0].request
    assert "queuedResourceId=" + url.split("queuedResourceId=")[1] in sent.url
    assert sent.headers["Authorization"] == "Bearer t"
    wire = json.loads(sent.body)
    if "/v2alpha1/" in url:
        assert wire == step.body
    else:
        assert _proto(wire) == _proto(dict(step.body))  # type: ignore[arg-type]
        assert _proto(wire) == step.body  # nothing dropped: printed body == proto view
    check_request(
        step.api,
        "POST",
        url,
        wire if "/v2alpha1/" in url else step.body,
        doc="tpu.v2alpha1" if "/v2alpha1/" in url else "tpu.v2",
    )


@responses.activate
def test_get_list_with_paging_and_delete() -> None:
    responses.get(
        f"{BASE}/queuedResources/q",
        json={"name": f"{PARENT}/queuedResources/q", "state": {"state": 6}},
    )
    responses.get(f"{BASE}/queuedResources/gone", status=404, json={"error": {"code": 404}})

    def page(request: Any) -> tuple[int, dict[str, str], str]:
        if "pageToken=p2" in request.url:
            return (
                200,
                {},
                json.dumps({"queuedResources": [{"name": f"{PARENT}/queuedResources/b"}]}),
            )
        first = {
            "queuedResources": [{"name": f"{PARENT}/queuedResources/a"}],
            "nextPageToken": "p2",
        }
        return 200, {}, json.dumps(first)

    responses.add_callback(responses.GET, f"{BASE}/queuedResources", callback=page)
    responses.delete(f"{BASE}/queuedResources/q", json={"name": f"{PARENT}/operations/d"})
    responses.delete(f"{BASE}/queuedResources/gone", status=404, json={"error": {"code": 404}})
    gw = gateway()
    assert gw.get_queued_resource(f"{PARENT}/queuedResources/q")["state"]["state"] == "ACTIVE"  # type: ignore[index]
    assert gw.get_queued_resource(f"{PARENT}/queuedResources/gone") is None
    names = [qr["name"].rsplit("/", 1)[1] for qr in gw.list_queued_resources(PARENT)]
    assert names == ["a", "b"]
    assert sum("/queuedResources?" in c.request.url for c in responses.calls) == 2
    assert gw.delete_queued_resource(f"{PARENT}/queuedResources/q") is True
    assert "force=True" in responses.calls[-1].request.url or "force=true" in (
        responses.calls[-1].request.url
    )
    assert gw.delete_queued_resource(f"{PARENT}/queuedResources/gone") is False


@responses.activate
def test_node_patch_and_guest_attributes() -> None:
    responses.get(f"{BASE}/nodes/n", json={"name": f"{PARENT}/nodes/n", "metadata": {"a": "1"}})
    responses.patch(f"{BASE}/nodes/n", json={"name": f"{PARENT}/operations/p"})
    responses.post(
        f"{BASE}/nodes/n:getGuestAttributes",
        json={
            "guestAttributes": [
                {
                    "queryValue": {
                        "items": [
                            {"namespace": "hostkeys", "key": "ssh-ed25519", "value": "AAAAC3"}
                        ]
                    }
                }
            ]
        },
    )
    gw = gateway()
    assert gw.get_node(f"{PARENT}/nodes/n")["metadata"] == {"a": "1"}
    gw.set_node_metadata(f"{PARENT}/nodes/n", {"a": "1", "ssh-keys": "alice:ssh-ed25519 K"})
    patch = responses.calls[1].request
    assert "updateMask=metadata" in patch.url
    body = json.loads(patch.body)
    assert body["metadata"] == {"a": "1", "ssh-keys": "alice:ssh-ed25519 K"}
    check_request(
        "tpu.projects.locations.nodes.patch",
        "PATCH",
        f"{BASE}/nodes/n?updateMask=metadata",
        {"metadata": body["metadata"]},
    )
    attrs = gw.guest_attributes(f"{PARENT}/nodes/n")
    assert attrs[0]["queryValue"]["items"][0]["value"] == "AAAAC3"
    assert responses.calls[2].request.url.startswith(f"{BASE}/nodes/n:getGuestAttributes")


@responses.activate
def test_raw_alpha_get_reads_flex_fields() -> None:
    responses.get(
        f"{ALPHA}/queuedResources/f",
        json={"provisioningModel": "FLEX_START", "runDuration": {"maxRunDuration": "3600s"}},
    )
    data = gateway().get_queued_resource_alpha(f"{PARENT}/queuedResources/f")
    assert data["provisioningModel"] == "FLEX_START"


def _error(code: int, status: str, message: str) -> dict[str, Any]:
    return {"error": {"code": code, "status": status, "message": message}}


@pytest.mark.parametrize(
    ("code", "status", "message", "expect", "hint"),
    [
        (
            429,
            "RESOURCE_EXHAUSTED",
            "Quota limit 'TPUV6EPreemptiblePerProjectPerRegionForTPUAPI' has been exceeded.",
            "region us-east5",
            "quota",
        ),
        (
            429,
            "RESOURCE_EXHAUSTED",
            "Quota limit 'TPUV5PPerProjectPerZoneForTPUAPI' has been exceeded.",
            "zone us-east5-b",
            "quota",
        ),
        (
            400,
            "INVALID_ARGUMENT",
            "Accelerator type v5p-128 is not available in zone us-east5-b. It is available in "
            "us-central1-a, us-east5-a.",
            "not offered in us-east5-b",
            "us-central1-a, us-east5-a",
        ),
        (
            400,
            "INVALID_ARGUMENT",
            "Invalid runtime version 'v9'.",
            "invalid runtime version",
            "--runtime-version",
        ),
        (
            403,
            "PERMISSION_DENIED",
            "Permission 'tpu.queuedResources.create' denied",
            "permission denied",
            "roles/tpu.admin",
        ),
    ],
)
@responses.activate
def test_errors_are_one_line_with_a_hint(
    code: int, status: str, message: str, expect: str, hint: str
) -> None:
    responses.post(f"{BASE}/queuedResources", status=code, json=_error(code, status, message))
    step = plan_create(SCENARIOS["v5p-128-reservation"]).by_id()["create"]
    with pytest.raises(CloudError) as err:
        gateway().create_queued_resource(str(step.url), dict(step.body))  # type: ignore[arg-type]
    assert expect in err.value.message and "\n" not in err.value.message
    assert hint in err.value.hint


@responses.activate
def test_raw_alpha_errors_map_the_same_way() -> None:
    responses.post(
        f"{ALPHA.replace('us-east5-b', 'us-east5-a')}/queuedResources",  # v6e flex-start's zone
        status=429,
        json=_error(
            429,
            "RESOURCE_EXHAUSTED",
            "Quota limit 'TPUV6EPreemptiblePerProjectPerRegionForTPUAPI' exceeded.",
        ),
    )
    step = plan_create(SCENARIOS["v6e-256-x4-flex-start-6h"]).by_id()["create"]
    with pytest.raises(CloudError) as err:
        gateway().create_queued_resource(str(step.url), dict(step.body))  # type: ignore[arg-type]
    assert "region us-east5" in err.value.message
