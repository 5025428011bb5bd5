"""The live handler of the `ar_reader` step: the nodes' service account gets
roles/artifactregistry.reader on the repository the image goes to (xcli/image/steps.py says
why). Requests as the discovery documents define them: cloudresourcemanager.v3
`GET v3/projects/{id}` (its `name` is `projects/NUMBER`); artifactregistry.v1
`GET v1/{resource}:getIamPolicy` and `POST v1/{resource}:setIamPolicy` with
`{"policy": ...}`. The policy is written back as read, the member added to the role and the
etag kept, so a concurrent change fails the write (409 ABORTED, or 412) and it is read again.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from xcli.errors import CloudError
from xcli.image.steps import AR_API, CRM_API, READER, ArReaderGrant, has_pull
from xcli.plan.contract import StepContext

RETRIES = 3


def _message(resp: Any) -> str:
    try:
        return str(resp.json().get("error", {}).get("message", "")) or resp.text[:200]
    except ValueError:
        return resp.text[:200] or f"HTTP {resp.status_code}"


def with_reader(policy: dict[str, Any], member: str) -> dict[str, Any]:
    bindings = [dict(b) for b in policy.get("bindings", [])]
    for b in bindings:
        if b.get("role") == READER and not b.get("condition"):
            b["members"] = [*b.get("members", []), member]
            break
    else:
        bindings.append({"role": READER, "members": [member]})
    return {**policy, "bindings": bindings}


def grant_reader(session: Any, step: ArReaderGrant, ctx: StepContext) -> Mapping[str, Any]:
    resp = session.get(f"{CRM_API}/projects/{step.node_project}")
    if resp.status_code != 200:
        raise CloudError(
            f"reading project {step.node_project}: HTTP {resp.status_code}: {_message(resp)}",
            hint="check the project id and resourcemanager.projects.get on it",
        )
    number = str(resp.json()["name"]).rsplit("/", 1)[-1]
    member = step.member(number)
    url = f"{AR_API}/{step.resource}"
    for _ in range(RETRIES):
        resp = session.get(f"{url}:getIamPolicy", params={"options.requestedPolicyVersion": 3})
        if resp.status_code != 200:
            raise _denied(resp, step, member, "reading the IAM policy of")
        policy = resp.json()
        if has_pull(policy, member):
            return {"project_number": number, "granted": False}
        ctx.report(f"granting {READER} on {step.repository} to {member}")
        resp = session.post(f"{url}:setIamPolicy", json={"policy": with_reader(policy, member)})
        if resp.status_code == 200:
            return {"project_number": number, "granted": True}
        if resp.status_code not in (409, 412):  # 409 ABORTED / 412: the etag changed
            raise _denied(resp, step, member, "granting the reader role on")
    raise CloudError(
        f"the IAM policy of {step.resource} kept changing while xcli granted {READER}",
        hint="run the command again",
    )


def _denied(resp: Any, step: ArReaderGrant, member: str, doing: str) -> CloudError:
    command = (
        f"gcloud artifacts repositories add-iam-policy-binding {step.repository} "
        f"--location {step.location} --project {step.project} --member {member} "
        f"--role {READER}"
    )
    return CloudError(
        f"{doing} repository {step.resource}: HTTP {resp.status_code}: {_message(resp)}; "
        "without that role the nodes cannot pull the image (ImagePullBackOff)",
        hint=f"ask an owner of the repository to run: {command}",
    )
