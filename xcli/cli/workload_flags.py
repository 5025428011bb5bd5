"""The checks on `xcli workload create`'s flags that need no cluster (any kind of workload).

Turning the flags into a WorkloadSpec is the workload package's (xcli/workload/request.py).
"""

from __future__ import annotations

from typing import Any

from xcli.errors import UserError
from xcli.spec import check_duration
from xcli.workload.request import exit_codes, requested_accelerator
from xcli.workload.spec import parse_env


def precheck(flags: dict[str, Any], extra_restart_codes: bool) -> None:
    """Every check that needs no cluster, run before the cluster is read (live or not)."""
    from xcli.catalog import lookup
    from xcli.spec import check_name

    check_name(flags["cluster"], "cluster", 40)
    check_name(flags["name"], "workload", 63)
    accelerator = requested_accelerator(flags)
    if accelerator:
        from xcli.cli.cluster import check_counts

        check_counts(
            lookup(accelerator), flags["tpu_type"], flags["num_slices"], flags["num_nodes"]
        )
    if exit_codes(flags["restart_on_exit_codes"]) and not extra_restart_codes:
        raise UserError(
            f"--restart-on-exit-codes applies only to --provider gke; on {flags['provider']} "
            "clusters every worker failure restarts (up to --max-restarts)",
            hint="drop --restart-on-exit-codes",
        )
    parse_env(flags["env_pairs"], flags["env_file"])
    check_duration(flags["ttl_after_finished"], "--ttl-after-finished", 60, 365 * 86400)
    check_duration(flags["termination_grace_period"], "--termination-grace-period", 1, 86400)
    image = str(flags["image"] or "")
    if image != image.strip() or not image.isprintable():
        raise UserError(
            f"--docker-image {image!r} has whitespace or control characters",
            hint="write the image reference without them, e.g. us-docker.pkg.dev/p/r/img:1",
        )
