"""gcsfuse: a Cloud Storage bucket mounted through the Cloud Storage FUSE CSI driver (GKE), or
gcsfuse itself on Cloud TPU VMs.

Sources: the driver's pre-provisioned example
(https://github.com/GoogleCloudPlatform/gcs-fuse-csi-driver/tree/main/examples/static), its
docs/authentication.md (Workload Identity; hostNetworkPodKSA for host-network pods, GKE
1.33.3-gke.1226000+, Standard), the Cloud Storage naming rules
(https://cloud.google.com/storage/docs/buckets#naming), and Google's TPU samples for the mount
options (gcsfuse samples/gke-csi-yaml/tpu/training-pv.yaml and checkpointing-pv.yaml).
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING

from xcli.errors import UserError
from xcli.plan.model import Step
from xcli.plan.steps import ApiCall, Text
from xcli.plan.storage_steps import STORAGE_API
from xcli.plan.storage_types.base import StorageType, Volume

if TYPE_CHECKING:
    from xcli.plan.storage import Storage
    from xcli.plan.storage_request import AttachRequest, CreateRequest

_BUCKET_CHARS = re.compile(r"^[a-z0-9][a-z0-9._-]*[a-z0-9]$|^[a-z0-9]$")

# Datasets (read-only) cache metadata for ever; checkpoints add the file cache, parallel
# downloads, kernel read-ahead and streaming writes.
DATASET_OPTIONS = (
    "implicit-dirs",
    "metadata-cache:negative-ttl-secs:0",
    "metadata-cache:ttl-secs:-1",
    "metadata-cache:stat-cache-max-size-mb:-1",
    "metadata-cache:type-cache-max-size-mb:-1",
)
CHECKPOINT_OPTIONS = (
    *DATASET_OPTIONS,
    "file-cache:max-size-mb:-1",
    "file-cache:cache-file-for-range-read:true",
    "file-cache:enable-parallel-downloads:true",
    "read_ahead_kb=1024",
    "write:enable-streaming-writes:true",
)
# gcsfuse flags the CSI driver refuses (cloud-storage-fuse-csi-driver-perf page)
FORBIDDEN_OPTIONS = (
    "app-name",
    "temp-dir",
    "foreground",
    "log-file",
    "log-format",
    "key-file",
    "token-url",
    "reuse-token-from-url",
)


class Gcsfuse(StorageType):
    name = "gcsfuse"
    driver = "gcsfuse.csi.storage.gke.io"
    addon = "gcsFuseCsiDriverConfig"
    addon_attr = "gcs_fuse_csi_driver_config"
    source_flag = "--bucket"
    vm_mountable = True
    bucket_grant = True
    creatable = True
    # gcs-fuse-csi-driver pkg/webhook/mutatingwebhook.go and config.go: the annotation makes
    # the webhook inject the sidecar; "0" is no limit for its resources (the default memory
    # limit OOM-kills it under training reads: issues #314, #372), as XPK sets them
    pod_annotations = {
        "gke-gcsfuse/volumes": "true",
        "gke-gcsfuse/cpu-limit": "0",
        "gke-gcsfuse/memory-limit": "0",
        "gke-gcsfuse/ephemeral-storage-limit": "0",
    }
    host_network_note = (
        "gcsfuse in host-network pods (xcli's pods use the host network): needs GKE "
        '1.33.3-gke.1226000+ (Standard) and the volume attribute hostNetworkPodKSA "true" '
        "on the storage's PersistentVolume"
    )

    def default_options(self, readonly: bool) -> tuple[str, ...]:
        return DATASET_OPTIONS if readonly else CHECKPOINT_OPTIONS

    def check_mount_option(self, option: str) -> None:
        if option.split("=", 1)[0].split(":", 1)[0] in FORBIDDEN_OPTIONS:
            raise UserError(
                f"the gcsfuse CSI driver refuses mount option {option!r}",
                hint=f"drop it; refused: {', '.join(FORBIDDEN_OPTIONS)}",
            )

    def check_source(
        self, name: str, bucket: str, instance: str, disk: str, *, new_bucket: bool, created: bool
    ) -> str:
        if not bucket:
            raise UserError("gcsfuse storage needs --bucket", hint="e.g. --bucket my-data")
        bucket_name(bucket, new=new_bucket)
        return instance

    def source_of(self, req: AttachRequest) -> str:
        return req.bucket

    def volume(self, req: AttachRequest, after: tuple[str, ...]) -> tuple[list[Step], Volume]:
        attributes: dict[str, Text] = {
            # the driver's own bucket check needs extra IAM for its controller; the mount fails
            # clearly enough on a wrong bucket (gcsfuse samples set this too)
            "skipCSIBucketAccessCheck": "true",
            "gcsfuseMetadataPrefetchOnMount": "true",
            "gcsfuseLoggingSeverity": "warning",
            # xcli's JobSet pods use hostNetwork: the pod's KSA authenticates only with this
            # (gcs-fuse-csi-driver docs/authentication.md; GKE 1.33.3-gke.1226000+, Standard)
            "hostNetworkPodKSA": "true",
        }
        return [], Volume(self.name, req.bucket, attributes, "64Gi")

    def create_step(self, req: CreateRequest, labels: Mapping[str, str]) -> Step:
        """storage.v1 buckets.insert, in the cluster's region, with uniform bucket-level access
        (needed for read-write access through Workload Identity, docs/authentication.md) and
        a hierarchical namespace (atomic directory renames for checkpoints, and higher initial
        QPS: https://cloud.google.com/storage/docs/hns-overview)."""
        a = req.attach
        return ApiCall(
            id="create",
            summary=f"create bucket {a.bucket} in {a.cluster.region}",
            api="storage.buckets.insert",
            method="POST",
            url=f"{STORAGE_API}/b?project={a.cluster.project}",
            body={
                "name": a.bucket,
                "location": a.cluster.region,
                "iamConfiguration": {"uniformBucketLevelAccess": {"enabled": True}},
                "hierarchicalNamespace": {"enabled": True},
                "labels": dict(labels),
            },
        )

    def delete_step(self, record: Storage, after: tuple[str, ...]) -> Step:
        return ApiCall(
            id="delete",
            summary=f"delete bucket {record.source} (Cloud Storage refuses while objects remain)",
            after=after,
            api="storage.buckets.delete",
            method="DELETE",
            url=f"{STORAGE_API}/b/{record.source}",
            accept=("NOT_FOUND",),
        )


def bucket_name(name: str, *, new: bool) -> str:
    """A bucket name. `new` (create): every naming rule. Attaching an existing bucket: the
    characters only, since Cloud Storage itself has judged the length of a bucket that exists."""
    name = name.removeprefix("gs://").rstrip("/")
    hint = (
        "bucket names: 3-63 characters, a-z 0-9 - _ ., starting and ending with a letter or digit"
    )

    def bad(why: str) -> UserError:
        return UserError(f"bucket name {name!r} {why}", hint=hint)

    if not name or not _BUCKET_CHARS.match(name):
        raise bad(
            "may contain only lowercase letters, digits, -, _ and ., and must start and "
            "end with a letter or digit"
        )
    if not new:
        return name
    parts = name.split(".")
    if len(name) < 3 or len(name) > (222 if len(parts) > 1 else 63):
        raise bad("must be 3-63 characters long (dotted names: up to 222)")
    if any(len(p) > 63 or not p for p in parts):
        raise bad("has a dot-separated part that is empty or longer than 63 characters")
    if name.startswith("goog") or "google" in name or "g00gle" in name:
        raise bad("may not start with 'goog' or contain 'google'")
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return name
    raise bad("may not be an IP address")


def gcs_location(value: str, flag: str) -> str:
    """`gs://BUCKET[/PATH]`, the one rule of every gs:// flag: the bucket by Google's naming rules
    (`bucket_name`, https://cloud.google.com/storage/docs/buckets#naming), the path without
    `.` or `..` segments, control characters or more than 1,024 bytes
    (https://cloud.google.com/storage/docs/objects#naming). Returned without a trailing '/'."""
    example = f"e.g. {flag} gs://my-bucket/path"
    if not value.startswith("gs://"):
        raise UserError(f"{flag} {value[:80]!r} is not a gs:// location", hint=example)
    bucket, _, path = value[5:].partition("/")
    try:
        bucket_name(bucket, new=True)
    except UserError as exc:
        raise UserError(f"{flag} {value[:80]!r}: {exc.message}", hint=exc.hint) from None
    if any(ord(c) < 32 or ord(c) == 127 for c in path) or len(path.encode()) > 1024:
        raise UserError(
            f"{flag} {value[:80]!r}: the object path has a control character or is over "
            "1,024 bytes",
            hint=example,
        )
    if any(part in (".", "..") for part in path.rstrip("/").split("/") if path):
        raise UserError(f"{flag} {value[:80]!r}: the path has a '.' or '..' part", hint=example)
    return value.rstrip("/") if path else value


GCSFUSE = Gcsfuse()
