"""Put an image build in front of a workload's plan.

The workload's planner is handed the image as text, `HOST/NAME@${build.digest}` (what the
dry-run prints); `splice` puts the build's steps first and, in every step of the workload's
plan, swaps that text for the reference itself (a `Fmt` over the push step's `digest`), and
makes each such step run after the push. Steps that do not use the image (reads, checks) keep
their place and run while the image is built and pushed.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from xcli.errors import InternalError
from xcli.image.build import Build
from xcli.plan.model import Plan, Step


def splice(build: Build, plan: Plan) -> Plan:
    ours = {s.id for s in build.steps}
    clash = ours & {s.id for s in plan.steps}
    if clash:
        raise InternalError(f"image build step ids {sorted(clash)} are used by {plan.title!r}")
    text = str(build.image)
    steps: list[Step] = list(build.steps)
    for step in plan.steps:
        changes: dict[str, Any] = {}
        for f in dataclasses.fields(step):
            if f.name in ("id", "summary", "after", "lane"):
                continue
            value = getattr(step, f.name)
            swapped = _swap(value, text, build.image)
            if swapped is not value:
                changes[f.name] = swapped
        if changes:
            after = (*step.after, build.last) if build.last not in step.after else step.after
            step = dataclasses.replace(step, **changes, after=after)
        steps.append(step)
    return dataclasses.replace(plan, steps=tuple(steps))


def _swap(value: Any, text: str, image: Any) -> Any:
    """`value` with every string equal to `text` replaced by `image`; the same object when
    nothing changed (so untouched steps stay as they were)."""
    if isinstance(value, str):
        return image if value == text else value
    if isinstance(value, Mapping):
        items = {k: _swap(v, text, image) for k, v in value.items()}
        return items if any(items[k] is not value[k] for k in value) else value
    if isinstance(value, (list, tuple)):
        seq = [_swap(v, text, image) for v in value]
        if all(a is b for a, b in zip(seq, value, strict=True)):
            return value
        return seq if isinstance(value, list) else tuple(seq)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changes = {
            f.name: _swap(getattr(value, f.name), text, image) for f in dataclasses.fields(value)
        }
        changed = {k: v for k, v in changes.items() if v is not getattr(value, k)}
        return dataclasses.replace(value, **changed) if changed else value
    return value
