"""`xcli storage attach --manifest FILE` (XPK's --manifest): the file's PV and PVC checked
(storage/manifest.py), then planned (storage/manifest_plan.py) and run as any attach is."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from xcli.app.storage import check_new_name, confirm_recreate, reader_of, run_storage_plan
from xcli.app.storage_request import attach_request
from xcli.errors import UserError
from xcli.plan.storage_types import unit

if TYPE_CHECKING:
    from xcli.app.deps import Deps
    from xcli.app.storage import AttachStorage


def attach_manifest(req: AttachStorage, deps: Deps) -> None:
    """XPK's `storage attach --manifest FILE`: the file's PV and PVC, checked, then applied
    with xcli's record (the CSI driver add-on and a bucket's grant as for any attach)."""
    from xcli.errors import collect
    from xcli.storage import manifest
    from xcli.storage.manifest_plan import plan_attach_manifest

    src = req.source

    def conflict(flag: str, value: object) -> None:
        if value:
            raise UserError(
                f"{flag} goes without --manifest: the file's PersistentVolume names the "
                + ("mount options" if flag == "--mount-options" else "source"),
                hint=f"drop {flag}, or drop --manifest",
            )

    given = {"--bucket": src.bucket, "--instance": src.instance, "--disk": src.disk,
             "--location": src.location, "--path": src.path,
             "--mount-options": req.mount.mount_options}  # fmt: skip
    collect(*(lambda f=f, v=v: conflict(f, v) for f, v in given.items()))
    areq, target = attach_request(req.name, req.cluster, req.source, req.mount, deps)
    if not target.kube:
        raise UserError(
            "--manifest is for clusters with Kubernetes (GKE): it holds a PersistentVolume and "
            "its claim",
            hint="attach with --bucket (and --path on local clusters) instead",
        )
    areq = replace(areq, readonly=req.mount.readonly)  # the file's access modes, as written
    kind = unit(areq.type)
    objects = manifest.read(src.manifest, kind.driver, areq.type, areq.namespace)
    reader = reader_of(target, deps)
    check_new_name(areq, target, reader)
    plan = plan_attach_manifest(areq, objects, src.manifest, reader.addon_on(target.ref, areq.type))
    confirm_recreate(plan, target, deps)
    run_storage_plan(plan, target, deps)
