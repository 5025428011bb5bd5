"""Step kinds of `xcli storage`: a read whose answer later steps use, and a bucket IAM change.

They live in plan/ (not in xcli/storage/) because the gateway that runs them reads them.

JSON form (every step also has id, kind, summary, after):
- api_read: the api_call fields plus "outputs" {name: where in the answer}
- bucket_iam: "api", "bucket", "role", "member", "action" (add|remove), "requests" (the
  getIamPolicy read and the setIamPolicy write, with the etag read)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from xcli.plan.model import Step, symbolic
from xcli.plan.steps import ApiCall, Text

STORAGE_API = "https://storage.googleapis.com/storage/v1"


@dataclass(frozen=True, kw_only=True)
class ApiRead(ApiCall):
    """A GET whose answer later steps use: each output is a path into the JSON answer.

    A path is dot-separated keys and list indexes ("networks.0.ipAddresses.0"); a final
    "@last" keeps what follows the last "/" of the value ("name@last": "projects/123" -> "123"),
    "@before:SEP" what comes before the first SEP, "@after:SEP" what follows it (Lustre's
    "mountPoint@before:@": "10.0.0.2@tcp:/fs" -> "10.0.0.2"; "mountPoint@after::/" -> "fs").
    A list becomes its items joined by commas.
    """

    kind: ClassVar[str] = "api_read"

    outputs: Mapping[str, str] = field(default_factory=dict)

    def details(self) -> dict[str, Any]:
        out = super().details()
        out["outputs"] = dict(self.outputs)
        return out


def pick(answer: Any, path: str) -> Any:
    """The value at `path` (ApiRead's syntax) in a JSON answer; None when it is not there."""
    for cut in ("@before:", "@after:"):
        if cut in path:
            path, sep = path.split(cut, 1)
            whole = pick(answer, path)
            if whole is None or sep not in str(whole):
                return None
            parts = str(whole).split(sep, 1)
            return parts[0] if cut == "@before:" else parts[1]
    path, last = (path[: -len("@last")], True) if path.endswith("@last") else (path, False)
    value = answer
    for key in path.split("."):
        if isinstance(value, list) and key.isdigit() and int(key) < len(value):
            value = value[int(key)]
        elif isinstance(value, Mapping) and key in value:
            value = value[key]
        else:
            return None
    if isinstance(value, list):  # Parallelstore accessPoints: the driver takes "ip,ip,ip"
        value = ",".join(str(v) for v in value)
    return str(value).rsplit("/", 1)[-1] if last and value is not None else value


@dataclass(frozen=True, kw_only=True)
class BucketIam(Step):
    """Add (or remove) one member of one role in a bucket's IAM policy, read-modify-write.

    The live handler reads the policy (version 3), changes only this member of this role, and
    writes it back with the etag it read (a concurrent change makes the write fail with 412,
    and the handler reads again). Nothing is written when the member is already (or no longer)
    there.
    """

    kind: ClassVar[str] = "bucket_iam"

    bucket: str
    role: str
    member: Text
    action: str = "add"  # or "remove"

    def iam_url(self) -> str:
        return f"{STORAGE_API}/b/{self.bucket}/iam"

    def details(self) -> dict[str, Any]:
        change = "added to" if self.action == "add" else "removed from"
        return {
            "api": "storage.buckets.setIamPolicy",
            "bucket": self.bucket,
            "role": self.role,
            "member": symbolic(self.member),
            "action": self.action,
            "requests": [
                {
                    "api": "storage.buckets.getIamPolicy",
                    "method": "GET",
                    "url": f"{self.iam_url()}?optionsRequestedPolicyVersion=3",
                },
                {
                    "api": "storage.buckets.setIamPolicy",
                    "method": "PUT",
                    "url": self.iam_url(),
                    "body": f"the policy read, with the member {change} the role, "
                    "and the etag read",
                },
            ],
        }
