"""Terraform mode: `xcli cluster create --terraform DIR` writes a reviewable deployment folder.

Pure (no network, no subprocess): settings from the spec, the rendered folder, and the plan
whose steps write it and run terraform. The subprocess side is xcli/gateways/terraform.py.
"""

from __future__ import annotations

from xcli.terraform.folder import RECORD, commands, deployment_files, record
from xcli.terraform.plan import PostApply, TerraformRun, plan_create, plan_destroy
from xcli.terraform.settings import (
    module_inputs,
    tf_node_pool_settings,
    tf_queued_resource_settings,
)

__all__ = [
    "RECORD",
    "PostApply",
    "TerraformRun",
    "commands",
    "deployment_files",
    "module_inputs",
    "plan_create",
    "plan_destroy",
    "record",
    "tf_node_pool_settings",
    "tf_queued_resource_settings",
]
