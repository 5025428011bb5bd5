"""Terraform mode as a plan: write the deployment folder, then (with --apply) run terraform.

Provider-independent: `cluster create --terraform DIR` calls `plan_create` with the provider's
TerraformSupport (xcli/terraform/support.py), which says what differs. Every file is a
LocalAction "write_file" step (the dry-run shows it and, with --out, writes it under
<out>/terraform/); every terraform command is a
`TerraformRun` step the gateway runs with its output streamed. Without a binary the plan only
writes the folder and its notes carry the exact commands to run.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any, ClassVar

from xcli.plan.model import Plan, Step
from xcli.plan.steps import LocalAction
from xcli.spec import ClusterSpec
from xcli.terraform.folder import RECORD, commands, deployment_files, state_backend
from xcli.terraform.support import TerraformSupport


@dataclass(frozen=True, kw_only=True)
class TerraformRun(Step):
    """Run terraform (or tofu) with `argv`; `capture` "outputs" makes `output -json` values
    (the non-sensitive ones) this step's outputs, for steps that run after apply."""

    kind: ClassVar[str] = "terraform"

    argv: tuple[str, ...]
    capture: str | None = None

    def details(self) -> dict[str, Any]:
        # One shell-quoted line (shlex.split gives argv back exactly): readable in the text form.
        out: dict[str, Any] = {"command": shlex.join(self.argv)}
        if self.capture:
            out["capture"] = self.capture
        return out


# What runs once the infrastructure exists (TerraformSupport.post_apply: JobSet, Kueue and the
# metadata ConfigMap for GKE; SSH keys for queued resources): given the spec and the id of the
# step whose outputs hold the terraform outputs, return the steps (each running after that id).
PostApply = Callable[[ClusterSpec, str], Sequence[Step]]


def _write_steps(spec: ClusterSpec, folder: str, support: TerraformSupport) -> list[Step]:
    steps: list[Step] = []
    for rel, text in sorted(deployment_files(spec, folder, support).items()):
        steps.append(
            LocalAction(
                id=f"write-{rel.replace('/', '-').lstrip('.')}",
                summary=f"write {rel}",
                action="write_file",
                args={
                    "path": f"terraform/{rel}",
                    "dest": str(PurePath(folder) / rel),
                    "content": text,
                },
            )
        )
    return steps


def _notes(
    spec: ClusterSpec, folder: str, binary: str | None, apply: bool, support: TerraformSupport
) -> list[str]:
    notes = [f"Terraform deployment folder: {folder}"]
    before, after = support.notes(spec, binary)
    if state_backend(spec) is None:
        notes.append(
            f"state is kept in {PurePath(folder) / 'terraform.tfstate'}; "
            "pass --state-bucket to keep it in Cloud Storage"
        )
    notes += before
    if binary is None:
        why = "no terraform or tofu on PATH; " if apply else ""
        notes.append(why + "to create the cluster, run:")
        notes += ["  " + shlex.join(c) for c in commands("terraform", folder)[:4]]
    return notes + after


def plan_create(
    spec: ClusterSpec,
    folder: str,
    support: TerraformSupport,
    *,
    binary: str | None,
    apply: bool = False,
    confirm: bool = True,
    post_apply: PostApply | None = None,
) -> Plan:
    """Write the folder; with `apply` and a binary also init, plan, show, confirm, apply,
    output, then `post_apply` (the CLI passes support.post_apply)."""
    steps = _write_steps(spec, folder, support)
    written = tuple(s.id for s in steps)
    if apply and binary is not None:
        init, tfplan, show, do_apply, output = commands(binary, folder)
        runs: list[Step] = [
            TerraformRun(id="tf-init", summary="terraform init", after=written, argv=tuple(init)),
            TerraformRun(
                id="tf-plan", summary="terraform plan", after=("tf-init",), argv=tuple(tfplan)
            ),
            TerraformRun(
                id="tf-show", summary="show the plan", after=("tf-plan",), argv=tuple(show)
            ),
        ]
        if confirm:
            runs.append(
                LocalAction(
                    id="confirm-apply",
                    summary="ask before apply",
                    after=("tf-show",),
                    action="confirm",
                    args={"question": f"Apply this plan to create cluster {spec.name}?"},
                )
            )
        runs += [
            TerraformRun(
                id="tf-apply", summary="terraform apply", after=(runs[-1].id,), argv=tuple(do_apply)
            ),
            TerraformRun(
                id="tf-output",
                summary="read the outputs",
                after=("tf-apply",),
                argv=tuple(output),
                capture="outputs",
            ),
        ]
        steps += runs
        if post_apply is not None:
            steps += post_apply(spec, "tf-output")
    title = f"create cluster {spec.name} with Terraform ({spec.provider}, {spec.accelerator.name})"
    return Plan(title, tuple(steps), notes=tuple(_notes(spec, folder, binary, apply, support)))


def plan_destroy(record: dict[str, Any], folder: str, *, binary: str) -> Plan:
    """terraform init + destroy in the folder (the caller has asked for confirmation)."""
    init, destroy = commands(binary, folder, destroy=True, auto_approve=True)
    steps = (
        TerraformRun(id="tf-init", summary="terraform init", argv=tuple(init)),
        TerraformRun(
            id="tf-destroy",
            summary=f"terraform destroy (cluster {record['cluster']})",
            after=("tf-init",),
            argv=tuple(destroy),
        ),
    )
    notes = (f"Terraform deployment folder: {folder} (recorded in {RECORD})",)
    return Plan(f"delete cluster {record['cluster']} with Terraform", steps, notes=notes)
