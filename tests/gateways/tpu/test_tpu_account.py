"""Project metadata, the caller's e-mail and the OS Login import, through google-auth's
AuthorizedSession against `responses`; and the metadata-update operation poll.

Each request xcli sends is checked against the compute.v1 and oslogin.v1 discovery documents
(tests/support/discovery.py), and so is each canned answer, so the fakes answer what the APIs
answer: POST v1/{+parent}:importSshPublicKey, query projectId, body SshPublicKey (`key`;
`expirationTimeUsec` optional); answer ImportSshPublicKeyResponse {loginProfile: {name,
posixAccounts[{primary, username, uid, ...}], sshPublicKeys}}.
"""

from __future__ import annotations

import base64
import json
from urllib.parse import parse_qs, urlsplit

import pytest
import responses
from google.oauth2.credentials import Credentials

from tests.support.discovery import check_request, check_value
from xcli.errors import CloudError
from xcli.gateways.tpu.account import TpuAccount
from xcli.gateways.tpu.api import TpuGateway
from xcli.plan.tpu_steps import TOKENINFO

COMPUTE = "https://compute.googleapis.com/compute/v1/projects/my-proj"
IMPORT = "https://oslogin.googleapis.com/v1/users/alice@example.com:importSshPublicKey"
IMPORT_ID = "oslogin.users.importSshPublicKey"
KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKEY xcli"
PROFILE = {
    "loginProfile": {
        "name": "alice@example.com",
        "posixAccounts": [
            {"primary": False, "username": "other_user", "uid": "1002"},
            {"primary": True, "username": "alice_example_com", "uid": "1001"},
        ],
        "sshPublicKeys": {"fp": {"key": KEY, "fingerprint": "fp"}},
    }
}


def account(**kw: object) -> TpuAccount:
    return TpuAccount(TpuGateway("us-east5-b", credentials=Credentials(token="t", **kw)))


@responses.activate
def test_project_metadata_is_read_from_common_instance_metadata() -> None:
    items = [{"key": "enable-oslogin", "value": "TRUE"}, {"key": "ssh-keys", "value": "x"}]
    responses.get(COMPUTE, json={"name": "my-proj", "commonInstanceMetadata": {"items": items}})
    assert account().project_metadata(COMPUTE) == {"enable-oslogin": "TRUE", "ssh-keys": "x"}
    request = responses.calls[0].request
    assert request.headers["Authorization"] == "Bearer t"
    check_request("compute.projects.get", str(request.method), str(request.url), request.body)
    answer = json.loads(responses.calls[0].response.text)
    check_value("compute.v1", {"$ref": "Project"}, answer, "compute.projects.get answer")
    responses.replace(responses.GET, COMPUTE, json={"name": "my-proj"})
    assert account().project_metadata(COMPUTE) == {}


@responses.activate
def test_import_sends_an_ssh_public_key_and_returns_the_primary_posix_user() -> None:
    responses.post(IMPORT, json=PROFILE)
    url = f"{IMPORT}?projectId=my-proj"
    assert account().import_ssh_key(url, {"key": KEY}) == "alice_example_com"
    request = responses.calls[0].request
    parts = urlsplit(request.url)
    assert parts.path == "/v1/users/alice@example.com:importSshPublicKey"
    assert parse_qs(parts.query) == {"projectId": ["my-proj"]}
    assert request.method == "POST"
    assert json.loads(request.body) == {"key": KEY}
    check_request(IMPORT_ID, "POST", str(request.url), json.loads(request.body))
    check_value("oslogin.v1", {"$ref": "ImportSshPublicKeyResponse"}, PROFILE, "answer")


@responses.activate
def test_import_errors_name_the_role() -> None:
    denied = {"error": {"code": 403, "status": "PERMISSION_DENIED", "message": "denied"}}
    responses.post(IMPORT, status=403, json=denied)
    with pytest.raises(CloudError) as err:
        account().import_ssh_key(IMPORT, {"key": KEY})
    assert err.value.status == "PERMISSION_DENIED"
    assert err.value.message == "importing the SSH key with OS Login failed: denied"
    assert "roles/compute.osLogin" in err.value.hint
    responses.replace(responses.POST, IMPORT, json={"loginProfile": {"name": "a"}})
    with pytest.raises(CloudError, match="no POSIX user name"):
        account().import_ssh_key(IMPORT, {"key": KEY})


@responses.activate
def test_caller_email_from_the_id_token_without_a_request() -> None:
    claims = base64.urlsafe_b64encode(json.dumps({"email": "bob@example.com"}).encode())
    token = f"e30.{claims.decode().rstrip('=')}.sig"
    assert account(id_token=token).caller_email() == "bob@example.com"
    assert len(responses.calls) == 0


@responses.activate
def test_caller_email_from_tokeninfo_sends_the_token_as_a_form_field() -> None:
    responses.post(TOKENINFO, json={"email": "alice@example.com", "scope": "openid"})
    assert account().caller_email() == "alice@example.com"
    request = responses.calls[0].request
    assert parse_qs(str(request.body)) == {"access_token": ["t"]}
    assert "access_token" not in request.url
    responses.replace(responses.POST, TOKENINFO, json={"scope": "cloud-platform"})
    with pytest.raises(CloudError, match="which account xcli runs as") as err:
        account().caller_email()
    assert "userinfo.email" in err.value.hint


@responses.activate
def test_operation_poll_reads_the_operation_as_json() -> None:
    name = "projects/my-proj/locations/us-east5-b/operations/op-1"
    url = f"https://tpu.googleapis.com/v2/{name}"
    responses.get(url, json={"name": name, "done": True, "response": {"newerField": 1}})
    gw = TpuGateway("us-east5-b", credentials=Credentials(token="t"))
    assert gw.get_operation(name)["done"] is True
    check_request("tpu.projects.locations.operations.get", "GET", url, None)
