"""The step kind that makes the TPU VMs of a queued resource reachable over SSH.

One step covers every node of the queued resource because `xcli cluster wait` knows the node
names only once the queued resource is ACTIVE (then `nodes` is a Ref). For each node the live
handler sends exactly the requests printed here:

1. nodes.get, to read the node's current metadata;
2. nodes.patch ?updateMask=metadata: the metadata map is replaced as a whole, so the body sent is
   the node's current metadata with this key appended as one more `ssh-keys` line (nothing is
   dropped; an HTTP 409 from a concurrent update is retried after re-reading);
3. operations.get on the operation the patch returned, until it is done, so the key is on the
   node when create returns;
4. nodes.getGuestAttributes: every worker's host keys, pinned in xcli's own known_hosts file.

With OS Login (`os_login`), metadata keys are ignored by the VMs, so steps 2 and 3 are left out:
the key was imported into the caller's OS Login profile by an earlier step of the plan and
`user` is the POSIX user name that import returned (a Ref).

CallerEmail is the step that finds the account xcli runs as, for the OS Login import URL.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from xcli.plan.model import Fmt, Ref, Step, symbolic
from xcli.plan.steps import Text

NODES_GET = "tpu.projects.locations.nodes.get"
NODES_PATCH = "tpu.projects.locations.nodes.patch"
NODES_GUEST_ATTRIBUTES = "tpu.projects.locations.nodes.getGuestAttributes"
OPERATIONS_GET = "tpu.projects.locations.operations.get"
TOKENINFO = "https://oauth2.googleapis.com/tokeninfo"

MERGE_NOTE = (
    "the PATCH body is the node's current metadata with this ssh-keys line appended "
    "(existing keys are kept; HTTP 409 is retried after re-reading the node)"
)


@dataclass(frozen=True, kw_only=True)
class TpuSshAccess(Step):
    kind: ClassVar[str] = "tpu_ssh_access"

    api_base: str  # https://tpu.googleapis.com/v2/projects/P/locations/Z
    queued_resource: str
    nodes: tuple[str, ...] | Ref
    user: Text
    public_key: Text
    key_file: str
    known_hosts: str = "known_hosts"  # inside the xcli state folder
    os_login: bool = False

    @property
    def ssh_keys_line(self) -> Fmt:
        return Fmt("{}:{}", self.user, self.public_key)

    def node_requests(self, node: str) -> list[dict[str, Any]]:
        url = f"{self.api_base}/nodes/{node}"
        requests: list[dict[str, Any]] = [{"api": NODES_GET, "method": "GET", "url": url}]
        if not self.os_login:
            requests += [
                {
                    "api": NODES_PATCH,
                    "method": "PATCH",
                    "url": f"{url}?updateMask=metadata",
                    "body": {"metadata": {"ssh-keys": symbolic(self.ssh_keys_line)}},
                },
                {
                    "api": OPERATIONS_GET,
                    "method": "GET",
                    "name": "the operation the PATCH answered with",
                    "until": "done",
                },
            ]
        requests.append(
            {
                "api": NODES_GUEST_ATTRIBUTES,
                "method": "POST",
                "url": f"{url}:getGuestAttributes",
                "body": {},
            }
        )
        return requests

    def details(self) -> dict[str, Any]:
        if isinstance(self.nodes, Ref):
            nodes: Any = str(self.nodes)
            requests = self.node_requests("{node}")
        else:
            nodes = list(self.nodes)
            requests = [r for node in self.nodes for r in self.node_requests(node)]
        out = {
            "nodes": nodes,
            "user": symbolic(self.user),
            "key_file": self.key_file,
            "requests": requests,
            "merge": OS_LOGIN_NOTE if self.os_login else MERGE_NOTE,
            "known_hosts": f"<xcli state folder>/{self.known_hosts}",
        }
        return out


OS_LOGIN_NOTE = (
    "OS Login: the VMs ignore ssh-keys metadata, so the nodes' metadata is not changed; the key "
    "was imported into the caller's OS Login profile"
)


@dataclass(frozen=True, kw_only=True)
class CallerEmail(Step):
    """The e-mail of the account xcli runs as (output `email`), for the OS Login API.

    Service-account credentials carry it; for user credentials it is the `email` claim of the id
    token when there is one, else the answer of Google's tokeninfo endpoint for the access token
    (sent as the `access_token` form field, never printed).
    """

    kind: ClassVar[str] = "caller_email"

    def details(self) -> dict[str, Any]:
        return {
            "from": [
                "credentials.service_account_email",
                "id_token email claim",
                {"method": "POST", "url": TOKENINFO, "form": ["access_token"]},
            ]
        }
