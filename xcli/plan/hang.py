"""`workload create --hang-after D|Nx`: when a run counts as hung. Pure.

A run is hung when no worker has printed a new goodput mark (`XCLI_GOODPUT`, xcli.goodput) for
`D` (an absolute duration), or for N times the median step time seen so far (`Nx`). The watch
arms at the attempt's first mark: before it, the program is starting (imports, compilation),
whose length nothing here knows, so a hang before the first mark is not caught. `Nx` also waits
for two consecutive step marks, which give the first step time.

The same idea as NVIDIA's fault-tolerance monitor (a timeout from the largest observed interval
times a safety factor, nvidia-resiliency-ext `fault_tolerance/timeouts_calc.py`), measured from
the marks xcli already reads instead of an in-process heartbeat.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from statistics import median

from xcli.errors import UserError

HANG_REASON = "hang"  # a WorkerExit's reason starts with it: goodput's cause `hang`
_MULTIPLE = re.compile(r"^([0-9]+(?:\.[0-9]+)?)x$")
_STEP = re.compile(rb"step=([0-9]+)\b")
MIN_SECONDS = 1.0


@dataclass(frozen=True)
class HangRule:
    """`seconds` (D) or `multiple` (Nx), exactly one."""

    seconds: float | None = None
    multiple: float | None = None

    def __str__(self) -> str:
        return f"{self.multiple:g}x" if self.multiple is not None else f"{self.seconds:g}s"


def parse_hang_after(text: str | None) -> HangRule | None:
    """`--hang-after`: a duration (30s, 10m, 1h) or a multiple of the step time (5x)."""
    from xcli.spec import check_duration

    if text is None:
        return None
    value = text.strip()
    found = _MULTIPLE.match(value)
    if found:
        multiple = float(found.group(1))
        if not 1.5 <= multiple <= 1000:
            raise UserError(
                f"--hang-after {text}: a multiple of the step time must be 1.5x..1000x",
                hint="e.g. --hang-after 10x (ten median steps without a new mark)",
            )
        return HangRule(multiple=multiple)
    try:
        return HangRule(seconds=float(check_duration(value, "--hang-after", 1, 7 * 86400)))
    except UserError as exc:
        raise UserError(
            f"{exc.message}; --hang-after takes a duration or a multiple of the step time",
            hint="pass a duration (3s, 10m, 1h) or a multiple of the median step time (10x)",
        ) from None


@dataclass
class HangWatch:
    """What the runner feeds as output arrives: every mark line with the time it was read."""

    rule: HangRule
    last_mark: float | None = None
    _steps: list[tuple[float, int]] = field(default_factory=list)

    def reset(self) -> None:
        """A new attempt: the old marks time nothing."""
        self.last_mark = None
        self._steps.clear()

    def saw(self, at: float, line: bytes) -> None:
        self.last_mark = at
        step = _STEP.search(line)
        if step is not None:
            self._steps.append((at, int(step.group(1))))

    def step_seconds(self) -> float | None:
        """The median gap between consecutive step numbers (any worker's marks, in order)."""
        gaps = [
            b[0] - a[0]
            for a, b in zip(self._steps, self._steps[1:], strict=False)
            if b[1] == a[1] + 1
        ]
        return median(gaps) if gaps else None

    def limit(self) -> float | None:
        """Seconds without a mark that make a hang; None while it cannot be known yet."""
        if self.rule.seconds is not None:
            return self.rule.seconds
        per_step = self.step_seconds()
        if per_step is None or self.rule.multiple is None:
            return None
        return max(MIN_SECONDS, self.rule.multiple * per_step)

    def hung(self, now: float) -> float | None:
        """The silence (seconds since the last mark) when it is past the limit, else None."""
        limit = self.limit()
        if self.last_mark is None or limit is None:
            return None
        silence = now - self.last_mark
        return silence if silence >= limit else None

    def reason(self, silence: float, stacks: str) -> str:
        return (
            f"{HANG_REASON}: no new goodput mark for {silence:.1f}s (--hang-after {self.rule}); "
            f"stacks saved in {stacks}"
        )
