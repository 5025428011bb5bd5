"""Terraform mode: `xcli cluster create --terraform DIR` writes a reviewable deployment folder.

Pure (no network, no subprocess) and generic: the folder writer and the plan whose steps write
it and run terraform. What differs between providers (modules, inputs, checks, the steps after
apply) is each provider's TerraformSupport (support.py), e.g. xcli/providers/gke/terraform.py.
The subprocess side is xcli/gateways/terraform.py.
"""

from __future__ import annotations

from xcli.terraform.folder import RECORD, commands, deployment_files, module_inputs, record
from xcli.terraform.plan import PostApply, TerraformRun, plan_create, plan_destroy
from xcli.terraform.support import TerraformSupport

__all__ = [
    "RECORD",
    "PostApply",
    "TerraformRun",
    "TerraformSupport",
    "commands",
    "deployment_files",
    "module_inputs",
    "plan_create",
    "plan_destroy",
    "record",
]
