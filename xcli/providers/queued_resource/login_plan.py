"""How xcli's SSH key reaches queued-resource VMs: the plan steps that decide it before create.

Facts (https://cloud.google.com/compute/docs/oslogin, the OS Login v1 REST reference
https://cloud.google.com/compute/docs/oslogin/rest/v1/users/importSshPublicKey, and what gcloud
does: https://github.com/google-cloud-sdk-unofficial/google-cloud-sdk/blob/master/lib/googlecloudsdk/command_lib/compute/tpus/tpu_vm/ssh.py):
with `enable-oslogin=TRUE` in the node's or the
project's metadata, VMs ignore ssh-keys metadata; the key is then imported with
`POST https://oslogin.googleapis.com/v1/users/{email}:importSshPublicKey` and the login user is
the answer's primary `loginProfile.posixAccounts[].username`. A node's own value overrides the
project's (Compute Engine metadata precedence).
"""

from __future__ import annotations

from xcli.plan.model import Fmt, Ref, Step
from xcli.plan.steps import ApiCall, Text
from xcli.plan.tpu_steps import CallerEmail
from xcli.providers.queued_resource.options import QrOptions

PROJECT_GET = "compute.projects.get"
OSLOGIN_IMPORT = "oslogin.users.importSshPublicKey"
COMPUTE_ROOT = "https://compute.googleapis.com/compute/v1"
OSLOGIN_ROOT = "https://oslogin.googleapis.com/v1"


def login_steps(project: str, opts: QrOptions) -> tuple[list[Step], Text]:
    """How the key reaches the VMs, decided before anything is created; and the login user.

    OS Login (--os-login, or the node's enable-oslogin=TRUE): find the caller's e-mail, import
    the key into its OS Login profile, log in as the POSIX user that returns. Otherwise the key
    goes into ssh-keys metadata, after checking that the project does not turn OS Login on
    (its VMs would then ignore metadata keys); a node's own enable-oslogin=FALSE wins over the
    project's, so no check is needed then.
    """
    if opts.os_login:
        caller = CallerEmail(id="caller", summary="find the e-mail of the account xcli runs as")
        import_key = ApiCall(
            id="os-login-key",
            summary="import the SSH key into your OS Login profile (the VMs use OS Login)",
            after=("ssh-key", "caller"),
            api=OSLOGIN_IMPORT,
            method="POST",
            url=Fmt(
                OSLOGIN_ROOT + "/users/{}:importSshPublicKey?projectId={}",
                Ref("caller", "email"),
                project,
            ),
            body={"key": Ref("ssh-key", "public_key")},
        )
        return [caller, import_key], Ref("os-login-key", "username")
    if opts.node_os_login == "FALSE":
        return [], opts.ssh_user
    check = ApiCall(
        id="os-login-check",
        summary="check the project's metadata: with enable-oslogin=TRUE metadata SSH keys are "
        "ignored (then stop and say to use --os-login)",
        api=PROJECT_GET,
        method="GET",
        url=f"{COMPUTE_ROOT}/projects/{project}",
    )
    return [check], opts.ssh_user
