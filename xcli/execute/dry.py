"""The dry-run executor: the same plan, printed instead of run.

It needs no credentials and no network, and its output is a pure function of the plan. With an
output folder it also writes a deployment folder: plan.json, one YAML file per Kubernetes object
under manifests/, and any Terraform files under terraform/.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal, TextIO

from xcli.execute.result import RunResult
from xcli.plan.contract import StepResult
from xcli.plan.model import Plan, symbolic
from xcli.plan.render import plan_json, plan_text
from xcli.plan.steps import K8sApply, LocalAction


class DryRunExecutor:
    def __init__(
        self,
        out: TextIO,
        fmt: Literal["text", "json", "yaml"] = "text",
        folder: Path | None = None,
    ) -> None:
        self.out = out
        self.fmt = fmt
        self.folder = folder

    def run(self, plan: Plan) -> RunResult:
        if self.fmt == "yaml":  # the JSON document's data, in the same key order
            import yaml  # only for this form: text and JSON plans skip its import

            data = json.loads(plan_json(plan))
            self.out.write(yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=1000))
        else:
            self.out.write(plan_json(plan) if self.fmt == "json" else plan_text(plan))
        if self.folder is not None:
            write_deployment(plan, self.folder)
        return RunResult(plan.title, {s.id: StepResult(s, "planned") for s in plan.steps})


def write_deployment(plan: Plan, folder: Path) -> list[Path]:
    """Write the plan's deployment folder; return the files written, in order."""
    import yaml

    folder.mkdir(parents=True, exist_ok=True)
    written = [folder / "plan.json"]
    written[0].write_text(plan_json(plan), encoding="utf-8")
    for step in plan.steps:
        if isinstance(step, K8sApply):
            path = folder / "manifests" / f"{step.id}.yaml"
            text = yaml.safe_dump(symbolic(step.manifest), sort_keys=False)
        elif isinstance(step, LocalAction) and step.action == "write_file":
            path = folder / str(step.args["path"])
            text = str(step.args["content"])
        else:
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written
