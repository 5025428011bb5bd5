"""Plans and steps: every side effect xcli has is a Step value in a Plan.

A Step names the steps it runs after. A value that exists only once a step has run (an operation
name, a cluster endpoint, a worker IP) is a `Ref` to that step's output, or a `Fmt` string built
from refs. The dry-run prints refs as `${step-id.output}`; the live executor replaces them with
the real values before it hands a step to its handler. Nothing is ever a made-up placeholder.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from xcli.errors import InternalError


@dataclass(frozen=True)
class Ref:
    """The output `output` of step `step`, known only after that step has run."""

    step: str
    output: str

    def __str__(self) -> str:
        return f"${{{self.step}.{self.output}}}"


@dataclass(frozen=True)
class Fmt:
    """A string with refs in it: Fmt("{}/operations/{}", base, Ref("pool-0", "operation"))."""

    template: str
    args: tuple[Any, ...]

    def __init__(self, template: str, *args: Any) -> None:
        object.__setattr__(self, "template", template)
        object.__setattr__(self, "args", args)

    def __str__(self) -> str:
        return self.template.format(*(str(a) for a in self.args))


def refs_in(value: Any) -> Iterator[Ref]:
    """Every Ref inside a value (dicts, lists, tuples, Fmt, nested dataclasses)."""
    if isinstance(value, Ref):
        yield value
    elif isinstance(value, Fmt):
        for arg in value.args:
            yield from refs_in(arg)
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from refs_in(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from refs_in(item)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            yield from refs_in(getattr(value, f.name))


def resolve(value: Any, outputs: Mapping[str, Mapping[str, Any]]) -> Any:
    """Replace refs with the outputs of finished steps; leave everything else as it is."""
    if isinstance(value, Ref):
        try:
            return outputs[value.step][value.output]
        except KeyError:
            raise InternalError(
                f"{value} was used but step {value.step!r} did not produce it"
            ) from None
    if isinstance(value, Fmt):
        return value.template.format(*(resolve(a, outputs) for a in value.args))
    if isinstance(value, Mapping):
        return {k: resolve(v, outputs) for k, v in value.items()}
    if isinstance(value, list):
        return [resolve(v, outputs) for v in value]
    if isinstance(value, tuple):
        return tuple(resolve(v, outputs) for v in value)
    return value


def symbolic(value: Any) -> Any:
    """The printable form of a value: refs become `${step.output}` strings."""
    if isinstance(value, (Ref, Fmt)):
        return str(value)
    if isinstance(value, Mapping):
        return {k: symbolic(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [symbolic(v) for v in value]
    return value


@dataclass(frozen=True, kw_only=True)
class Step:
    """One side effect. Subclasses add the fields that say exactly what it does."""

    kind: ClassVar[str] = "step"

    id: str
    summary: str
    after: tuple[str, ...] = ()
    # Steps in the same lane share a concurrency limit (Plan.lane_limits), e.g. node-pool creates.
    lane: str | None = None

    def details(self) -> dict[str, Any]:
        """Kind-specific fields, in printable (symbolic) form, for the JSON dry-run."""
        base = {f.name for f in dataclasses.fields(Step)}
        return {
            f.name: symbolic(getattr(self, f.name))
            for f in dataclasses.fields(self)
            if f.name not in base and f.metadata.get("print", True)
        }

    def resolved(self, outputs: Mapping[str, Mapping[str, Any]]) -> Step:
        """A copy with every ref replaced by its value."""
        changes = {
            f.name: resolve(getattr(self, f.name), outputs)
            for f in dataclasses.fields(self)
            if f.name not in ("id", "summary", "after", "lane")
        }
        return dataclasses.replace(self, **changes)


@dataclass(frozen=True)
class Plan:
    """An ordered list of steps plus the limits the live executor keeps to."""

    title: str
    steps: tuple[Step, ...]
    notes: tuple[str, ...] = ()
    max_parallel: int = 8
    lane_limits: Mapping[str, int] = field(default_factory=dict)
    # Where to follow what a live run made (name -> Cloud Console URL, plan/gke/console.py): printed
    # with the live run's summary, not part of the dry-run's request list.
    links: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        seen: dict[str, Step] = {}
        for step in self.steps:
            if step.id in seen:
                raise InternalError(f"plan {self.title!r}: step id {step.id!r} used twice")
            for dep in step.after:
                if dep not in seen:
                    raise InternalError(f"step {step.id!r} runs after unknown or later {dep!r}")
            ancestors = self._ancestors(step, seen)
            for ref in refs_in(step):
                if ref.step not in ancestors:
                    raise InternalError(
                        f"step {step.id!r} uses {ref} but does not run after {ref.step!r}"
                    )
            seen[step.id] = step

    @staticmethod
    def _ancestors(step: Step, seen: Mapping[str, Step]) -> set[str]:
        todo, found = list(step.after), set()
        while todo:
            sid = todo.pop()
            if sid not in found:
                found.add(sid)
                todo.extend(seen[sid].after)
        return found

    def by_id(self) -> dict[str, Step]:
        return {s.id: s for s in self.steps}

    def dependents(self, step_id: str) -> set[str]:
        """Every step that runs, directly or not, after `step_id`."""
        found: set[str] = set()
        for step in self.steps:
            if step_id in step.after or found.intersection(step.after):
                found.add(step.id)
        return found


def chain(steps: Iterable[Step]) -> tuple[Step, ...]:
    """Steps in the order given, each after the one before (for strictly serial work)."""
    out: list[Step] = []
    for step in steps:
        if out and not step.after:
            step = dataclasses.replace(step, after=(out[-1].id,))
        out.append(step)
    return tuple(out)
