"""Checks on `xcli storage` input, made before anything is read or sent.

Bucket names follow Cloud Storage's public rules
(https://cloud.google.com/storage/docs/buckets#naming). Filestore capacities follow the service
tier pages (https://cloud.google.com/filestore/docs/service-tiers, -zonal, -regional; file.v1
says "BASIC instances offer a maximum capacity of 63.9 TB"); Managed Lustre's the performance
tiers page (https://cloud.google.com/managed-lustre/docs/performance-tiers).
"""

from __future__ import annotations

import difflib
import ipaddress
import posixpath
import re
from collections.abc import Iterable

from xcli.errors import UserError
from xcli.plan.storage import TYPES, Storage, mount_point_problem, mounts_collide
from xcli.spec import check_name

_BUCKET_CHARS = re.compile(r"^[a-z0-9][a-z0-9._-]*[a-z0-9]$|^[a-z0-9]$")
_DNS1123 = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_MOUNT_OPTION = re.compile(r"^[A-Za-z0-9_:.=/+-]+$")

# Filestore tiers: (smallest, largest) capacity in GiB, and whether the instance lives in a
# zone (else in a region). BASIC_* and ZONAL: zone; REGIONAL and ENTERPRISE: region (file.v1
# and XPK's core/filestore.py agree on the location kind).
FILESTORE_TIERS: dict[str, tuple[int, int, bool]] = {
    "BASIC_HDD": (1024, 65434, True),  # 1 TiB .. 63.9 TiB
    "BASIC_SSD": (2560, 65434, True),  # 2.5 TiB .. 63.9 TiB
    "ZONAL": (1024, 102400, True),  # 1 TiB .. 100 TiB
    "REGIONAL": (100, 102400, False),  # 100 GiB .. 100 TiB
    "ENTERPRISE": (1024, 10240, False),  # 1 TiB .. 10 TiB
}
# Managed Lustre: perUnitStorageThroughput (MBps per TiB) -> (min GiB, max GiB, step GiB up
# to `band` GiB, step GiB above it).
LUSTRE_TIERS: dict[int, tuple[int, int, int, int, int]] = {
    1000: (9000, 10008000, 9000, 1530000, 72000),
    500: (18000, 20016000, 18000, 3060000, 144000),
    250: (36000, 40032000, 36000, 6120000, 288000),
    125: (72000, 12240000, 72000, 12240000, 72000),
}
# gcsfuse flags the CSI driver refuses (cloud-storage-fuse-csi-driver-perf page)
FORBIDDEN_FUSE_OPTIONS = (
    "app-name",
    "temp-dir",
    "foreground",
    "log-file",
    "log-format",
    "key-file",
    "token-url",
    "reuse-token-from-url",
)
_UNITS = {"gb": 1, "gib": 1, "g": 1, "tb": 1024, "tib": 1024, "t": 1024}


def storage_name(name: str) -> str:
    """Storage names become Kubernetes object names (xcli-storage-NAME, NAME-pv): DNS-1123."""
    return check_name(name, "storage", 40)


def storage_type(value: str) -> str:
    if value in TYPES:
        return value
    close = difflib.get_close_matches(value, TYPES, n=1)
    hint = f"did you mean {close[0]}?" if close else f"types: {', '.join(TYPES)}"
    raise UserError(f"unknown storage type {value!r}", hint=hint)


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
            if (
                kind == "gcsfuse"
                and opt.split("=", 1)[0].split(":", 1)[0] in FORBIDDEN_FUSE_OPTIONS
            ):
                raise UserError(
                    f"the gcsfuse CSI driver refuses mount option {opt!r}",
                    hint=f"drop it; refused: {', '.join(FORBIDDEN_FUSE_OPTIONS)}",
                )
            out.append(opt)
    return tuple(out)


def namespace(value: str) -> str:
    if len(value) > 63 or not _DNS1123.match(value):
        raise UserError(
            f"namespace {value!r} is not a Kubernetes namespace name",
            hint="lowercase letters, digits and -, at most 63 characters",
        )
    return value


def size_gib(value: str) -> int:
    """'1TB', '2.5TiB', '1024GB', '1024' (GiB) -> GiB. Filestore and Lustre count in GiB and
    call 1024 of them a TB, so TB and TiB mean the same here."""
    found = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([A-Za-z]*)\s*", value)
    unit = found.group(2).lower() if found else ""
    if not found or (unit and unit not in _UNITS):
        raise UserError(f"size {value!r} is not a size", hint="e.g. 1TB, 2.5TiB or 1024GB")
    gib = float(found.group(1)) * _UNITS.get(unit, 1)
    if gib != int(gib) or gib <= 0:
        raise UserError(f"size {value!r} is not a whole, positive number of GiB", hint="e.g. 1TB")
    return int(gib)


def filestore_capacity(tier: str, gib: int) -> None:
    low, high, _zonal = FILESTORE_TIERS[tier]
    if not low <= gib <= high:
        raise UserError(
            f"Filestore tier {tier} takes {low}-{high} GiB; {gib} GiB asked",
            hint=f"give --size between {low}GB and {high}GB, or another --tier",
        )


def lustre_capacity(throughput: int, gib: int) -> None:
    low, high, step, band, big_step = LUSTRE_TIERS[throughput]
    if gib > band:
        step = big_step
    if not low <= gib <= high or (gib - (band if gib > band else 0)) % step:
        raise UserError(
            f"Managed Lustre at {throughput} MBps/TiB takes {low}-{high} GiB in steps of {step}; "
            f"{gib} GiB asked",
            hint=f"give --size as a multiple of {step}GB, at least {low}GB",
        )
