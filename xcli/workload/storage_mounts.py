"""Which storages a workload mounts, and the fast-restart settings that point into them. Pure.

`workload create --storage NAME[,NAME]` names attached storages (the records of
xcli/plan/storage.py); every record with `auto_mount` is mounted too. `--compilation-cache` and
`--checkpoint-dir` take a `gs://BUCKET/PATH` or a path inside one of the mounted storages, which
must then be writable. Everything here is checked before anything is planned or sent.

The compilation cache settings (reference: jax 0.10.2 `jax/_src/config.py`, whose options each
read the upper-case environment variable of the same name, and
https://github.com/jax-ml/jax/blob/main/docs/persistent_compilation_cache.md):
JAX_COMPILATION_CACHE_DIR is the cache; JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS (JAX's
default 1.0: only compilations that took longer are written) and
JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES (0: JAX picks the minimum for the filesystem) are set
explicitly so the run says what it does; a `--env` of the same name wins. PyTorch/XLA reads
XLA_PERSISTENT_CACHE_PATH and XLA_PERSISTENT_CACHE_READ_ONLY, what
`torch_xla.runtime.initialize_cache(path, readonly=False)` sets
(https://docs.pytorch.org/xla/release/r2.8/_modules/torch_xla/runtime.html).
"""

from __future__ import annotations

import dataclasses
import posixpath
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from xcli.errors import ConfigError, NotFoundError, UserError
from xcli.plan.storage import Storage, mount_point_problem, mounts_collide
from xcli.plan.storage_types.gcsfuse import gcs_location
from xcli.workload.spec import WorkloadSpec

CHECKPOINT_ENV = "XCLI_CHECKPOINT_DIR"
# Bucket names: 3-63 characters, lowercase letters, digits, dashes, underscores and dots,
# starting and ending with a letter or digit (https://cloud.google.com/storage/docs/buckets).
# an existing bucket: its characters only (as `storage attach` checks one); Cloud Storage has
# judged the length of a bucket that exists, and `storage create` checks every naming rule
_NAME = re.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")


@dataclass(frozen=True)
class Mounts:
    """The storages a workload mounts and the environment the levers add."""

    storages: tuple[Storage, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    notes: tuple[str, ...] = ()
    unread: tuple[str, ...] = ()  # named, their records not read (a dry-run): read first


def requested(values: Iterable[str]) -> tuple[str, ...]:
    """--storage NAME[,NAME] (repeatable) -> names in order, without repeats; names checked."""
    names: list[str] = []
    for value in values:
        for name in (n.strip() for n in value.split(",")):
            if not name:
                continue
            if not _NAME.match(name):
                raise UserError(
                    f"--storage {name!r} is not a storage name",
                    hint="names are lowercase letters, digits and dashes (`xcli storage list`)",
                )
            if name not in names:
                names.append(name)
    return tuple(names)


def choose(available: Sequence[Storage], names: Sequence[str], cluster: str) -> list[Storage]:
    """The named storages, then every auto-mount one; unknown names refused with the list."""
    by_name = {s.name: s for s in available}
    unknown = [n for n in names if n not in by_name]
    if unknown:
        attached = sorted(by_name)
        raise NotFoundError(
            f"no storage {unknown[0]} is attached to cluster {cluster}",
            hint=(
                "attached: " + ", ".join(attached)
                if attached
                else f"none is; attach one with `xcli storage attach NAME --cluster {cluster} ...`"
            ),
        )
    chosen = [by_name[n] for n in names]
    auto = sorted((s for s in available if s.auto_mount), key=lambda s: s.name)
    chosen += [s for s in auto if s not in chosen]
    check_mount_points(chosen)
    return chosen


def check_mount_points(storages: Sequence[Storage]) -> None:
    """Absolute, no glob or whitespace, and no mount point equal to or inside another one."""
    for s in storages:
        problem = mount_point_problem(s.mount_point)
        if problem:  # a record written by hand, or by an xcli before the check
            raise ConfigError(
                f"storage {s.name} has mount point {s.mount_point!r}, which {problem}",
                hint=f"attach it again with `xcli storage attach {s.name} --mount-point /PATH ...`",
            )
    for i, a in enumerate(storages):
        for b in storages[i + 1 :]:
            pa, pb = posixpath.normpath(a.mount_point), posixpath.normpath(b.mount_point)
            if mounts_collide(pa, pb):
                raise UserError(
                    f"storages {a.name} and {b.name} collide: mount points {pa} and {pb}",
                    hint="mount only one of them (a storage attached with --auto-mount is "
                    "always mounted), or attach one at another --mount-point",
                )


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def check_form(value: str, flag: str) -> str:
    """`gs://BUCKET[/PATH]` (returned without a trailing slash) or an absolute path.

    Cloud Storage object names are 1-1,024 bytes of UTF-8 without carriage returns or line
    feeds (https://cloud.google.com/storage/docs/objects#naming); no control character is taken
    in a path either (the value reaches the workers as an environment variable)."""
    if any(ord(c) < 32 or ord(c) == 127 for c in value):
        raise UserError(
            f"{flag} {value[:80]!r} contains a control character (a newline, a tab)",
            hint="write the path on one line, without control characters",
        )
    if value.startswith("gs://") and len(value[5:].partition("/")[2].encode()) > 1024:
        raise UserError(
            f"{flag}: the object name is over 1,024 bytes",
            hint="Cloud Storage object names are at most 1,024 bytes; use a shorter path",
        )
    if value.startswith("gs://"):
        return gcs_location(value, flag)  # every gs:// flag's rule
    if not posixpath.isabs(value):
        raise UserError(
            f"{flag} {value!r} is neither gs://BUCKET/PATH nor an absolute path",
            hint="give gs://BUCKET/PATH, or a path inside a storage mounted with --storage",
        )
    return posixpath.normpath(value)


def target(value: str, storages: Sequence[Storage], flag: str) -> str:
    """A `gs://BUCKET[/PATH]` or a path inside a mounted, writable storage."""
    path = check_form(value, flag)
    if path.startswith("gs://"):
        return path
    home = next((s for s in storages if _inside(path, posixpath.normpath(s.mount_point))), None)
    if home is None:
        points = ", ".join(f"{s.mount_point} ({s.name})" for s in storages)
        raise UserError(
            f"{flag} {path} is not inside a mounted storage",
            hint=f"mounted: {points}"
            if points
            else "mount one with --storage NAME, or give gs://BUCKET/PATH",
        )
    if home.readonly:
        raise UserError(
            f"{flag} {path} is inside storage {home.name}, which is attached read-only",
            hint="write it to a storage attached without --readonly, or to gs://BUCKET/PATH",
        )
    return path


def cache_env(path: str) -> list[tuple[str, str]]:
    return [
        ("JAX_COMPILATION_CACHE_DIR", path),
        ("JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", "1"),
        ("JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES", "0"),
        ("XLA_PERSISTENT_CACHE_PATH", path),
        ("XLA_PERSISTENT_CACHE_READ_ONLY", "0"),
    ]


def resolve(
    available: Sequence[Storage],
    names: Sequence[str],
    cluster: str,
    cache: str | None,
    checkpoint: str | None,
) -> Mounts:
    storages = choose(available, names, cluster)
    env: list[tuple[str, str]] = []
    notes: list[str] = []
    if cache:
        path = target(cache, storages, "--compilation-cache")
        env += cache_env(path)
        if path.startswith("gs://"):
            notes.append(
                "compilation cache on gs://: JAX needs the etils[epath] package in the image "
                "to read and write it; a path inside a mounted storage needs nothing"
            )
    if checkpoint:
        env.append((CHECKPOINT_ENV, target(checkpoint, storages, "--checkpoint-dir")))
    for s in storages:
        mode = "read-only" if s.readonly else "read-write"
        notes.append(f"storage {s.name} ({s.type}, {s.source}) at {s.mount_point}, {mode}")
    return Mounts(tuple(storages), tuple(env), tuple(notes))


def with_env(spec: WorkloadSpec, mounts: Mounts) -> WorkloadSpec:
    """The spec with the levers' variables first; the user's --env of the same name wins."""
    if not mounts.env:
        return spec
    mine = dict(spec.env)
    added = tuple((k, v) for k, v in mounts.env if k not in mine)
    levers = tuple(k for k, _ in added)
    return dataclasses.replace(spec, env=added + spec.env, lever_env=spec.lever_env + levers)
