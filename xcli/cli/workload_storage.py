"""The storage and fast-restart flags of `xcli workload create` (docs/storage.md)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

OPTIONS: list[Callable[[Any], Any]] = [
    click.option(
        "--storage",
        multiple=True,
        metavar="NAME[,NAME]",
        help="Mount these attached storages in every worker, at their mount points (storages "
        "attached with --auto-mount are always mounted). Repeatable.",
    ),
    click.option(
        "--storage-record",
        "storage_record",
        multiple=True,
        type=click.Path(path_type=Path),
        metavar="FILE",
        help="With --dry-run on GKE: a storage's record (its ConfigMap as YAML or JSON) "
        "instead of reading the cluster. Repeatable.",
    ),
    click.option(
        "--compilation-cache",
        metavar="gs://B/PATH|DIR",
        help="Persistent compilation cache for JAX and PyTorch/XLA: a gs:// path, or a folder "
        "inside a mounted, writable storage (sets JAX_COMPILATION_CACHE_DIR, "
        "XLA_PERSISTENT_CACHE_PATH and the JAX cache minimums in every worker).",
    ),
    click.option(
        "--checkpoint-dir",
        metavar="gs://B/PATH|DIR",
        help="Where the program should write checkpoints, given to it as XCLI_CHECKPOINT_DIR: "
        "a gs:// path, or a folder inside a mounted, writable storage.",
    ),
]
