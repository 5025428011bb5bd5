"""The REST gateway of `xcli storage` against `responses`: a bucket policy changed by someone
else between read and write is read again (412), operations are polled to the end and their
errors reported, refused requests become one CloudError, reads keep only what is asked."""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest
import responses

from xcli.errors import CloudError
from xcli.gateways.backoff import Timing
from xcli.gateways.google.rest import RestGateway
from xcli.plan.contract import NullReporter, StepContext
from xcli.plan.operations import OperationCall
from xcli.plan.steps import ApiCall
from xcli.plan.storage_steps import ApiRead, BucketIam

IAM = "https://storage.googleapis.com/storage/v1/b/data/iam"
FILE = "https://file.googleapis.com/v1/projects/p/locations/us-east5-b"


def gateway() -> RestGateway:
    from google.auth.credentials import AnonymousCredentials
    from google.auth.transport.requests import AuthorizedSession

    session = AuthorizedSession(AnonymousCredentials())  # type: ignore[no-untyped-call]
    return RestGateway(session, timing=Timing(sleep=lambda _s, _e: None, rand=lambda: 0.5))


def ctx(step: Any) -> StepContext:
    return StepContext(step, NullReporter(), threading.Event(), {})


def grant(action: str = "add") -> BucketIam:
    return BucketIam(
        id="iam",
        summary="grant",
        bucket="data",
        role="roles/storage.objectUser",
        member="principal://m",
        action=action,
    )


@responses.activate
def test_a_policy_changed_meanwhile_is_read_again() -> None:
    policies = iter(
        [
            {"bindings": [], "etag": "e1"},
            {"bindings": [{"role": "roles/owner", "members": ["user:o"]}], "etag": "e2"},
        ]
    )
    responses.add_callback("GET", IAM, callback=lambda _r: (200, {}, json.dumps(next(policies))))
    sent: list[Any] = []

    def put(request: Any) -> tuple[int, dict[str, str], str]:
        sent.append(json.loads(request.body))
        if sent[-1]["etag"] == "e1":
            return 412, {}, json.dumps({"error": {"code": 412, "message": "Precondition Failed"}})
        return 200, {}, request.body

    responses.add_callback("PUT", IAM, callback=put)
    assert gateway().iam(grant(), ctx(grant())) == {"result": "changed"}
    assert sent[-1] == {
        "bindings": [
            {"role": "roles/owner", "members": ["user:o"]},
            {"role": "roles/storage.objectUser", "members": ["principal://m"]},
        ],
        "etag": "e2",
        "version": 3,
    }


@responses.activate
def test_nothing_is_written_when_nothing_changes() -> None:
    responses.get(IAM, json={"bindings": [], "etag": "e1"})
    assert gateway().iam(grant("remove"), ctx(grant())) == {"result": "unchanged"}
    assert [c.request.method for c in responses.calls] == ["GET"]


@responses.activate
def test_an_operation_that_fails_fails_the_step() -> None:
    step = OperationCall(
        id="create",
        summary="create Filestore fs",
        api="file.x",
        method="POST",
        url=f"{FILE}/instances?instanceId=fs",
        body={},
        poll="GET op",
    )
    responses.post(
        f"{FILE}/instances",
        json={"name": "projects/p/locations/us-east5-b/operations/o", "done": False},
    )
    responses.get(
        "https://file.googleapis.com/v1/projects/p/locations/us-east5-b/operations/o",
        json={"name": "o", "done": True, "error": {"code": 8, "message": "no capacity"}},
    )
    with pytest.raises(CloudError, match="create Filestore fs: no capacity"):
        gateway().run(step, ctx(step))


@responses.activate
def test_refusals_and_accepted_statuses() -> None:
    gone = ApiCall(
        id="d",
        summary="delete bucket data",
        api="storage.buckets.delete",
        method="DELETE",
        url="https://storage.googleapis.com/storage/v1/b/data",
        accept=("NOT_FOUND",),
    )
    responses.delete(str(gone.url), status=404, json={"error": {"code": 404, "message": "nope"}})
    assert gateway().run(gone, ctx(gone)) == {"result": "already gone"}
    full = ApiCall(
        id="d",
        summary="delete bucket full",
        api="storage.buckets.delete",
        method="DELETE",
        url="https://storage.googleapis.com/storage/v1/b/full",
    )
    responses.delete(
        str(full.url),
        status=409,
        json={"error": {"code": 409, "message": "The bucket you tried to delete is not empty."}},
    )
    with pytest.raises(CloudError, match="not empty") as err:
        gateway().run(full, ctx(full))
    assert "empty it first" in err.value.hint


@responses.activate
def test_a_read_keeps_the_outputs_asked_for() -> None:
    read = ApiRead(
        id="r",
        summary="read fs",
        api="file.projects.locations.instances.get",
        method="GET",
        url=f"{FILE}/instances/fs",
        outputs={"ip": "networks.0.ipAddresses.0", "share": "fileShares.0.name"},
    )
    responses.get(
        str(read.url),
        json={
            "networks": [{"ipAddresses": ["10.1.2.3"]}],
            "fileShares": [{"name": "vol1", "capacityGb": "1024"}],
        },
    )
    assert gateway().read(read, ctx(read)) == {"ip": "10.1.2.3", "share": "vol1"}
    responses.get(str(read.url), json={"networks": [{}], "fileShares": [{"name": "vol1"}]})
    with pytest.raises(CloudError, match="has no ip"):
        gateway().read(read, ctx(read))
