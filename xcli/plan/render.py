"""The two printed forms of a plan: JSON (the stable CI interface) and readable text.

Both are pure functions of the plan, so the same plan always prints the same bytes.
"""

from __future__ import annotations

import json
import shlex
from typing import Any

from xcli.plan.model import Plan, Step

FORMAT = "xcli.plan/v1"


def step_document(step: Step) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "id": step.id,
        "kind": step.kind,
        "summary": step.summary,
        "after": list(step.after),
    }
    doc.update(step.details())
    return doc


def plan_document(plan: Plan) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "title": plan.title,
        "notes": list(plan.notes),
        "plan": [step_document(s) for s in plan.steps],
    }


def plan_json(plan: Plan) -> str:
    return json.dumps(plan_document(plan), indent=2, ensure_ascii=False) + "\n"


def plan_text(plan: Plan) -> str:
    index = {s.id: n for n, s in enumerate(plan.steps, 1)}
    lines = [f"Plan: {plan.title} ({len(plan.steps)} steps)"]
    lines += [f"  note: {note}" for note in plan.notes]
    for n, step in enumerate(plan.steps, 1):
        after = ", ".join(str(index[a]) for a in step.after)
        lines.append("")
        lines.append(
            f"{n:>3}. [{step.id}] {step.summary}" + (f"  (after {after})" if after else "")
        )
        lines += ["     " + line for line in _detail_lines(step.details())]
    return "\n".join(lines) + "\n"


def _detail_lines(details: dict[str, Any]) -> list[str]:
    lines: list[str] = []
    request = details.pop("request", None)
    if request:
        lines.append(f"{request['method']} {request['url']}")
        if "body" in request:
            lines += _block(request["body"])
    workers = details.pop("workers", None)
    for key, value in details.items():
        if isinstance(value, (dict, list)):
            lines.append(f"{key}:")
            lines += ["  " + line for line in _block(value)]
        else:
            lines.append(f"{key}: {value}")
    for worker in workers or ():
        argv = shlex.join(worker["argv"])
        lines.append(f"[{worker['worker']}] {worker['host']}: {argv}")
    return lines


def _block(value: Any) -> list[str]:
    return json.dumps(value, indent=2, ensure_ascii=False).splitlines()
