"""`cluster create|delete --terraform DIR`: Terraform mode's use cases.

app/cluster.py routes here when --terraform is given; the planning is in xcli/terraform/ and the
subprocesses in xcli/gateways/terraform.py. Reads and checks the folder and its record (xcli.json).
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from xcli.errors import UserError
from xcli.spec import ClusterSpec
from xcli.terraform.support import TerraformSupport
from xcli.user_files import check_writable_folder

if TYPE_CHECKING:
    from xcli.app.deps import Deps
    from xcli.providers import Registry


def support_for(registry: Registry, provider: str) -> TerraformSupport:
    """The provider's Terraform support; a provider without one is refused."""
    support = registry.get(provider).terraform
    if support is None:
        able = registry.names(terraform=True)
        raise UserError(
            f"--terraform does not apply to --provider {provider}",
            hint="use " + " or ".join(f"--provider {name}" for name in able),
        )
    return support


def _check_flags(spec: ClusterSpec, support: TerraformSupport, deps: Deps) -> None:
    flags = deps.unsupported_flags(spec.provider, dict(spec.given), frozenset(support.flags))
    if flags:
        raise UserError(
            f"{', '.join(flags)} cannot be written to a Terraform folder yet",
            hint="drop it, or drop --terraform to create the cluster through the API",
        )


def requested(spec: ClusterSpec, deps: Deps) -> bool:
    """True when --terraform DIR was given (its flags are then checked)."""
    if spec.terraform is not None:
        _check_flags(spec, support_for(deps.registry, spec.provider), deps)
        return True
    return False


# What terraform (or tofu) itself writes in the folder; never the user's.
TERRAFORM_OWN = (".terraform", ".terraform.lock.hcl", "tfplan", "terraform.tfstate")


def _foreign_files(folder: Path, spec: ClusterSpec, support: TerraformSupport) -> list[str]:
    """Files in `folder` that xcli did not write. xcli recognises its folder by its record
    (xcli.json): without one, every file is the user's; with one, the files of the deployment's
    own names are xcli's, and anything else (besides terraform's own) is the user's."""
    from xcli.terraform import RECORD
    from xcli.terraform.folder import deployment_files

    if not folder.is_dir():
        return []
    present = sorted(
        str(p.relative_to(folder))
        for p in folder.rglob("*")
        if not p.is_dir() and not str(p.relative_to(folder)).startswith(TERRAFORM_OWN)
    )
    if not (folder / RECORD).is_file():
        return present
    ours = set(deployment_files(spec, str(folder), support))
    return [p for p in present if p not in ours]


def _read_record(path: Path) -> dict[str, Any]:
    """xcli.json of a Terraform folder; anything else there is one error, not a traceback."""
    from xcli.user_files import MIB, read_text

    try:
        record = json.loads(read_text(path, "Terraform record", MIB))
    except json.JSONDecodeError:
        record = None
    if not isinstance(record, dict):
        raise UserError(
            f"{path} is not the JSON record xcli writes",
            hint="choose the folder `cluster create --terraform` wrote, or delete that file",
        )
    return record


def _check_folder(folder: Path, spec: ClusterSpec, support: TerraformSupport) -> None:
    from xcli.terraform import RECORD

    check_writable_folder(folder, "--terraform")
    foreign = _foreign_files(folder, spec, support)
    if foreign and not spec.force:
        shown = ", ".join(foreign[:3]) + (
            f" and {len(foreign) - 3} more" if len(foreign) > 3 else ""
        )
        raise UserError(
            f"--terraform {folder} holds files xcli did not write: {shown}",
            hint="choose an empty or new folder, or pass --force to write there anyway "
            "(files of the same name are replaced)",
        )
    path = folder / RECORD
    if not path.is_file():
        return
    old = _read_record(path)
    if (old.get("cluster"), old.get("project")) != (spec.name, spec.project):
        raise UserError(
            f"{folder} holds the deployment of cluster {old.get('cluster')} "
            f"in project {old.get('project')}",
            hint="choose another --terraform folder for this cluster",
        )


def _after_apply(
    spec: ClusterSpec, support: TerraformSupport, deps: Deps
) -> Callable[[], Mapping[str, Any]]:
    """The live handlers for the post-apply steps, built only when a live run needs them."""

    def build() -> Mapping[str, Any]:
        from xcli.providers import terraform_live

        return terraform_live.handlers(spec, support, deps.terraform_connections)

    return build


def create(spec: ClusterSpec, dry_run: bool, yes: bool, deps: Deps) -> tuple[str, ...]:
    """Write (and with --apply, apply) the deployment folder; returns the notes to show after
    a live run that did not apply it (how to apply it by hand)."""
    from xcli.terraform import plan_create

    support = support_for(deps.registry, spec.provider)
    if spec.terraform is None:
        raise ValueError("terraform_mode.create needs a spec with --terraform DIR")
    folder, apply = spec.terraform.folder, spec.terraform.apply
    binary = deps.terraform_binary() if apply else None
    if dry_run and apply and binary is None:
        binary = "terraform"  # show the commands a run would use
    # the folder is checked for a dry-run too (it reads only this machine): a dry-run must not
    # plan the overwrite of a user's own files that the live run refuses
    _check_folder(Path(folder), spec, support)
    if not dry_run and apply and binary and not yes:
        deps.require_answerable("terraform apply")
    plan = plan_create(
        spec,
        folder,
        support,
        binary=binary,
        apply=apply,
        confirm=not yes,
        post_apply=support.post_apply,
    )
    post_handlers = _after_apply(spec, support, deps)
    deps.run_plan(plan, lambda: deps.terraform_handlers(post_handlers()))
    if dry_run or (apply and binary is not None):
        return ()
    return tuple(plan.notes[1:])


def delete(name: str, folder: str, dry_run: bool, deps: Deps) -> None:
    from xcli.terraform import RECORD, commands, plan_destroy

    path = Path(folder) / RECORD
    if not path.is_file():
        raise UserError(
            f"{folder} is not an xcli Terraform folder (no {RECORD})",
            hint="give the folder `cluster create --terraform` wrote",
        )
    record = _read_record(path)
    if record.get("cluster") != name:
        raise UserError(
            f"{folder} holds cluster {record.get('cluster')}, not {name}",
            hint=f"use --cluster {record.get('cluster')} or the right folder",
        )
    binary = deps.terraform_binary() or ("terraform" if dry_run else None)
    if binary is None:
        command = shlex.join(commands("terraform", folder, destroy=True)[1])
        raise UserError("no terraform or tofu on PATH", hint=f"install one, or run: {command}")
    plan = plan_destroy(record, folder, binary=binary)
    deps.confirm(f"Destroy cluster {name} and everything in {folder}'s Terraform state?")
    deps.run_plan(plan, lambda: deps.terraform_handlers(None))
