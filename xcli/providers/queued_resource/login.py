"""Live handlers for how xcli's key reaches the TPU VMs: OS Login or ssh-keys metadata.

- os-login-check (compute.projects.get): with `enable-oslogin=TRUE` in the project's common
  metadata the VMs ignore ssh-keys metadata, so the plan stops before anything is created and
  says to use --os-login. A project xcli may not read is reported and treated as OS Login off,
  as gcloud does when it cannot read the project.
- caller (CallerEmail) and os-login-key (oslogin.users.importSshPublicKey): the key goes into the
  caller's OS Login profile; the POSIX user name it returns is the login user.
"""

from __future__ import annotations

from typing import Any

from xcli.errors import CloudError, InternalError, UserError
from xcli.gateways.tpu.account import TpuAccount
from xcli.plan.contract import StepContext
from xcli.plan.steps import ApiCall
from xcli.plan.tpu_steps import CallerEmail
from xcli.providers.queued_resource.login_plan import OSLOGIN_IMPORT, PROJECT_GET

LOGIN_APIS = (PROJECT_GET, OSLOGIN_IMPORT)
UNREADABLE = ("PERMISSION_DENIED", "403", "NOT_FOUND", "404")


class LoginHandlers:
    def __init__(self, account: TpuAccount) -> None:
        self.account = account

    def api_call(self, step: ApiCall, ctx: StepContext) -> dict[str, Any]:
        if step.api == PROJECT_GET:
            return self.check_project(step, ctx)
        if step.api == OSLOGIN_IMPORT:
            username = self.account.import_ssh_key(str(step.url), dict(step.body or {}))
            ctx.report(f"key imported into your OS Login profile; login user {username}")
            return {"username": username}
        raise InternalError(f"no handler for {step.api}")

    def check_project(self, step: ApiCall, ctx: StepContext) -> dict[str, Any]:
        url = str(step.url)
        project = url.rsplit("/", 1)[-1]
        try:
            metadata = self.account.project_metadata(url)
        except CloudError as exc:
            if exc.status not in UNREADABLE:
                raise
            ctx.report(
                f"cannot read the metadata of project {project} ({exc.status}); assuming OS "
                "Login is off. If your VMs use it, run again with --os-login"
            )
            return {"enabled": False}
        enabled = metadata.get("enable-oslogin", "").upper() == "TRUE"
        if enabled:
            raise UserError(
                f"project {project} turns OS Login on (project metadata enable-oslogin=TRUE): "
                "its TPU VMs would ignore an SSH key in ssh-keys metadata",
                hint="add --os-login (for a queued resource that exists: xcli cluster wait "
                "--os-login): xcli then imports the key with the OS Login API and logs in as "
                "your OS Login user",
            )
        return {"enabled": False}

    def caller(self, step: CallerEmail, ctx: StepContext) -> dict[str, Any]:
        email = self.account.caller_email()
        ctx.report(f"running as {email}")
        return {"email": email}
