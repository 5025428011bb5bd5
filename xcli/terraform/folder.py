"""The deployment folder: a thin root module, the modules it calls, the values, the record.

`deployment_files(spec, folder, support)` returns every file as text keyed by its path inside
the folder, so the planner can show and write them as plan steps. Generic: what differs between
providers comes from their TerraformSupport (xcli/terraform/support.py). Pure: it reads only
xcli's own shipped files.
"""

from __future__ import annotations

import json
import shlex
from dataclasses import asdict
from typing import Any

from xcli import __version__
from xcli.errors import UserError
from xcli.resources import resource_dir
from xcli.spec import ClusterSpec
from xcli.templating import render
from xcli.terraform.support import TerraformSupport

RECORD = "xcli.json"
RECORD_FORMAT = "xcli.terraform/v1"
PLAN_FILE = "tfplan"
_ROOT_TEMPLATES = ("versions.tf", "providers.tf", "main.tf", "variables.tf", "outputs.tf")
_GITIGNORE = "\n".join([".terraform/", "tfplan", "terraform.tfstate", "*.tfstate.backup", ""])


def check_state_bucket(value: str) -> str:
    """A Cloud Storage bucket name (gs:// accepted), checked before anything is written."""
    from xcli.plan.storage_types.gcsfuse import bucket_name  # every bucket flag's rule

    try:
        return bucket_name(value, new=True)
    except UserError as exc:
        raise UserError(f"--state-bucket {value!r}: {exc.message}", hint=exc.hint) from None


def state_backend(spec: ClusterSpec) -> dict[str, str] | None:
    bucket = state_bucket(spec)
    if not bucket:
        return None
    return {
        "bucket": check_state_bucket(str(bucket)),
        "prefix": f"xcli/{spec.project}/{spec.zone}/{spec.name}",
    }


def state_bucket(spec: ClusterSpec) -> str | None:
    return spec.terraform.state_bucket if spec.terraform else None


def module_inputs(spec: ClusterSpec, support: TerraformSupport) -> dict[str, Any]:
    """Everything terraform.tfvars.json holds: literal values, never interpolated."""
    inputs: dict[str, Any] = {"project_id": spec.project, "region": spec.region, "zone": spec.zone}
    return {**inputs, **support.inputs(spec)}


def record(spec: ClusterSpec, support: TerraformSupport) -> dict[str, Any]:
    """xcli.json: the spec the folder came from, so delete (and a re-render) need nothing else."""
    # the flags as given (spec.given), --force and --state-bucket; not --terraform and --apply
    given = {**dict(spec.given), "force": spec.force, "state_bucket": state_bucket(spec)}
    kept = dict(sorted(given.items()))
    return {
        "format": RECORD_FORMAT,
        "xcli_version": __version__,
        "cluster": spec.name,
        "project": spec.project,
        "zone": spec.zone,
        "provider": spec.provider,
        "accelerator": spec.accelerator.name,
        "capacity": {k: v for k, v in asdict(spec.capacity).items() if v is not None},
        "num_slices": spec.num_slices,
        "num_nodes": spec.num_nodes,
        "options": {k: v for k, v in kept.items() if v not in (None, False, "", (), [])},
        "modules": list(support.modules(spec)),
        "state": state_backend(spec) or {"local": "terraform.tfstate"},
    }


def commands(
    binary: str, folder: str, *, destroy: bool = False, auto_approve: bool = False
) -> list[list[str]]:
    """The exact terraform (or tofu) commands, as argv lists, in order."""
    base = [binary, f"-chdir={folder}"]
    if destroy:
        approve = ["-auto-approve"] if auto_approve else []
        return [[*base, "init", "-input=false"], [*base, "destroy", "-input=false", *approve]]
    return [
        [*base, "init", "-input=false"],
        [*base, "plan", "-input=false", f"-out={PLAN_FILE}"],
        [*base, "show", PLAN_FILE],
        [*base, "apply", "-input=false", PLAN_FILE],
        [*base, "output", "-json"],
    ]


def instructions(spec: ClusterSpec, folder: str, support: TerraformSupport) -> str:
    lines = [
        f"Terraform deployment of xcli cluster {spec.name} ({spec.provider}).",
        "",
        "Create it (terraform >= 1.5, or tofu in its place):",
        *("  " + shlex.join(c) for c in commands("terraform", folder)[:4]),
        "",
        "Delete it:",
        "  " + shlex.join(commands("terraform", folder, destroy=True)[1]),
        f"  or: xcli cluster delete --cluster {spec.name} --terraform {shlex.quote(folder)}",
        "",
    ]
    lines += support.instructions(spec)
    return "\n".join(lines)


def deployment_files(spec: ClusterSpec, folder: str, support: TerraformSupport) -> dict[str, str]:
    """Every file of the deployment folder, path inside the folder -> text."""
    support.check(spec)
    inputs = module_inputs(spec, support)
    variables = [
        (k, support.module_of(k)) for k in inputs if k not in ("project_id", "region", "zone")
    ]
    context = {
        **support.root_context(spec),
        "backend": state_backend(spec),
        "inputs": variables,
        "xcli_version": __version__,
    }
    files = {name: render(f"terraform/{name}.j2", **context) for name in _ROOT_TEMPLATES}
    files["terraform.tfvars.json"] = json.dumps(inputs, indent=2, ensure_ascii=False) + "\n"
    files[RECORD] = json.dumps(record(spec, support), indent=2, ensure_ascii=False) + "\n"
    files["instructions.txt"] = instructions(spec, folder, support)
    files[".gitignore"] = _GITIGNORE
    for module in support.modules(spec):
        source = resource_dir("terraform") / module
        for path in sorted(source.iterdir()):
            if path.is_file():
                files[f"modules/{module}/{path.name}"] = path.read_text(encoding="utf-8")
    return files
