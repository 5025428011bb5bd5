"""The live handler of the `project_iam` step (xcli/plan/ml_diagnostics.py says why): the nodes'
default service account gets roles on the project. Requests as cloudresourcemanager.v3's
discovery document defines them: `GET v3/projects/{id}` (its `name` is `projects/NUMBER`),
`POST v3/projects/{id}:getIamPolicy` and `POST v3/projects/{id}:setIamPolicy` with
`{"policy": ...}`, the etag kept, so a concurrent change fails the write (409 ABORTED, or 412)
and the policy is read again.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from xcli.errors import CloudError
from xcli.gateways.google.rest import RestError, RestGateway, change_member
from xcli.plan.contract import StepContext
from xcli.plan.ml_diagnostics import CRM_API, ProjectIamGrant, compute_account

RETRIES = 3


class ProjectIamGateway:
    def __init__(self, rest: RestGateway | None = None) -> None:
        self.rest = rest or RestGateway()

    def grant(self, step: ProjectIamGrant, ctx: StepContext) -> Mapping[str, Any]:
        url = f"{CRM_API}/projects/{step.project}"
        try:
            number = str(self.rest.send("GET", url, ctx)["name"]).rsplit("/", 1)[-1]
            member = compute_account(number)
            for _ in range(RETRIES):
                body = {"options": {"requestedPolicyVersion": 3}}
                policy = self.rest.send("POST", f"{url}:getIamPolicy", ctx, body)
                bindings, changed = list(policy.get("bindings", [])), False
                for role in step.roles:
                    bindings, added = change_member(bindings, role, member, "add")
                    changed = changed or added
                if not changed:
                    ctx.report("every role has it already")
                    return {"project_number": number, "granted": "false"}
                new = {"bindings": bindings, "etag": policy.get("etag", ""), "version": 3}
                try:
                    self.rest.send("POST", f"{url}:setIamPolicy", ctx, {"policy": new})
                except RestError as exc:
                    if exc.code in (409, 412):  # the policy changed since it was read
                        continue
                    raise
                return {"project_number": number, "granted": "true"}
        except RestError as exc:
            roles = " ".join(f"--role {r}" for r in step.roles)
            raise CloudError(
                f"{step.summary}: {exc.message} (HTTP {exc.code})",
                hint="ask a project owner to grant the nodes' service account "
                f"(gcloud projects add-iam-policy-binding {step.project} --member "
                f"serviceAccount:PROJECT_NUMBER-compute@developer.gserviceaccount.com, once "
                f"per role: {roles})",
            ) from None
        raise CloudError(
            f"{step.summary}: the project's IAM policy kept changing while xcli wrote it",
            hint="run the command again",
        )
