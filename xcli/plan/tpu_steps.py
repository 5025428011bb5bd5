"""The step kind that makes the TPU VMs of a queued resource reachable over SSH.

One step covers every node of the queued resource because `xcli cluster wait` knows the node
names only once the queued resource is ACTIVE (then `nodes` is a Ref). For each node the live
handler sends exactly the three requests printed here:

1. nodes.get, to read the node's current metadata;
2. nodes.patch ?updateMask=metadata: the metadata map is replaced as a whole, so the body sent is
   the node's current metadata with this key appended as one more `ssh-keys` line (nothing is
   dropped; an HTTP 409 from a concurrent update is retried after re-reading);
3. nodes.getGuestAttributes: every worker's host keys, pinned in xcli's own known_hosts file.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from xcli.plan.model import Fmt, Ref, Step, symbolic
from xcli.plan.steps import Text

NODES_GET = "tpu.projects.locations.nodes.get"
NODES_PATCH = "tpu.projects.locations.nodes.patch"
NODES_GUEST_ATTRIBUTES = "tpu.projects.locations.nodes.getGuestAttributes"

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
    user: str
    public_key: Text
    key_file: str
    known_hosts: str = "known_hosts"  # inside the xcli state folder

    @property
    def ssh_keys_line(self) -> Fmt:
        return Fmt("{}:{}", self.user, self.public_key)

    def node_requests(self, node: str) -> list[dict[str, Any]]:
        url = f"{self.api_base}/nodes/{node}"
        return [
            {"api": NODES_GET, "method": "GET", "url": url},
            {
                "api": NODES_PATCH,
                "method": "PATCH",
                "url": f"{url}?updateMask=metadata",
                "body": {"metadata": {"ssh-keys": symbolic(self.ssh_keys_line)}},
            },
            {
                "api": NODES_GUEST_ATTRIBUTES,
                "method": "POST",
                "url": f"{url}:getGuestAttributes",
                "body": {},
            },
        ]

    def details(self) -> dict[str, Any]:
        if isinstance(self.nodes, Ref):
            nodes: Any = str(self.nodes)
            requests = self.node_requests("{node}")
        else:
            nodes = list(self.nodes)
            requests = [r for node in self.nodes for r in self.node_requests(node)]
        return {
            "nodes": nodes,
            "user": self.user,
            "key_file": self.key_file,
            "requests": requests,
            "merge": MERGE_NOTE,
            "known_hosts": f"<xcli state folder>/{self.known_hosts}",
        }
