"""Checks on `xcli storage` input, made before anything is read or sent: names, namespaces,
mount points and options. What only one type checks (bucket names, capacities, the options its
driver refuses) is in its unit (xcli/plan/storage_types/); `bucket_name` and `size_gib` are
re-exported here for the callers that check any storage's input.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable

from xcli.errors import UserError
from xcli.plan.storage import Storage, mount_point_problem, mounts_collide
from xcli.plan.storage_types import unit
from xcli.plan.storage_types.base import size_gib as size_gib
from xcli.plan.storage_types.gcsfuse import bucket_name as bucket_name
from xcli.spec import check_name

_DNS1123 = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_MOUNT_OPTION = re.compile(r"^[A-Za-z0-9_:.=/+-]+$")


def storage_name(name: str) -> str:
    """Storage names become Kubernetes object names (xcli-storage-NAME, NAME-pv): DNS-1123."""
    return check_name(name, "storage", 40)


def mount_point(path: str, name: str, others: Iterable[Storage]) -> str:
    problem = mount_point_problem(path)
    if problem:
        raise UserError(
            f"mount point {path!r} {problem}",
            hint="give an absolute path of letters, digits and . _ - / (e.g. /data)",
        )
    clean = posixpath.normpath(path)
    if clean == "/":
        raise UserError("mount point / would hide the container's file system", hint="e.g. /data")
    for other in others:
        if other.name == name:
            continue
        theirs = posixpath.normpath(other.mount_point)
        if mounts_collide(clean, theirs):
            raise UserError(
                f"mount point {clean} collides with storage {other.name} at {theirs}",
                hint="choose another --mount-point (mounts may not contain one another)",
            )
    return clean


def mount_options(values: Iterable[str], kind: str) -> tuple[str, ...]:
    out: list[str] = []
    for raw in values:
        for opt in (o.strip() for o in raw.split(",")):
            if not opt:
                continue
            if not _MOUNT_OPTION.match(opt):
                raise UserError(
                    f"mount option {opt!r} has characters a mount option cannot have",
                    hint="separate options with commas, no spaces",
                )
            unit(kind).check_mount_option(opt)
            out.append(opt)
    return tuple(out)


def namespace(value: str) -> str:
    if len(value) > 63 or not _DNS1123.match(value):
        raise UserError(
            f"namespace {value!r} is not a Kubernetes namespace name",
            hint="lowercase letters, digits and -, at most 63 characters",
        )
    return value
