"""What a broadcast returns: each worker's outcome, the exit status, the summary.

Plain values beside the fan-out plan (xcli.plan.fanout): the SSH engines in xcli.gateways build
them and the CLI renders them. Writing the output itself is I/O, in xcli.gateways.ssh.output.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

Status = Literal[
    "ok", "exit", "unreachable", "auth", "host key", "timed out", "interrupted", "local error"
]
UNREACHABLE: tuple[Status, ...] = ("unreachable", "auth", "host key")
ONE_BY_ONE = 10  # up to this many failures, one line each; more are grouped by cause
MAX_RANGES = 24  # ranges listed per cause before "and N more"


@dataclass
class WorkerOutcome:
    label: str
    status: Status
    exit_code: int | None = None
    detail: str = ""
    log: Path | None = None
    attempts: int = 1
    seconds: float = 0.0
    reached: bool = False  # the command started on the worker (a connection was made)

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    @property
    def reason(self) -> str:
        text = {
            "ok": "ok",
            "exit": f"exit code {self.exit_code}",
            "unreachable": "unreachable",
            "auth": "authentication refused",
            "host key": "host key does not match xcli's known_hosts",
            "timed out": "timed out",
            "interrupted": "interrupted",
            # this machine failed the worker's part: a full disk, a file name it cannot send
            "local error": "failed on this machine",
        }[self.status]
        return f"{text} ({self.detail})" if self.detail else text

    @property
    def code(self) -> int:
        """This worker's share of the exit status (see FanoutResult.exit_code)."""
        if self.status == "ok":
            return 0
        if self.status == "exit":
            return self.exit_code or 1
        if self.status == "timed out" and self.reached:
            return 124  # the command ran past --timeout, like timeout(1)
        if self.status == "interrupted":
            return 130
        if self.status == "local error":
            return 1  # this machine's failure (a full disk), not the worker's nor SSH's
        return 255


@dataclass
class FanoutResult:
    outcomes: list[WorkerOutcome]
    interrupted: bool = False
    log_dir: Path | None = None
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)  # what the run adapted (window, back-off)

    @property
    def failed(self) -> list[WorkerOutcome]:
        return [o for o in self.outcomes if not o.ok]

    @property
    def exit_code(self) -> int:
        """0 if every worker succeeded; 255 if one could not be reached; else the largest
        remote exit code (124 for a command stopped by --timeout)."""
        return max((o.code for o in self.outcomes), default=0)

    def summary_lines(self) -> list[str]:
        """A head line, the run's notes, then the failures: one line each when there are at
        most ONE_BY_ONE, else one line per cause listing worker ranges (readable at 2,304)."""
        total, bad = len(self.outcomes), self.failed
        head = f"{total - len(bad)} of {total} workers succeeded"
        head += f" in {self.seconds:.1f}s" + (" (interrupted)" if self.interrupted else "")
        lines = [head, *(f"  note: {n}" for n in self.notes)]
        if len(bad) <= ONE_BY_ONE:
            for o in bad:
                where = f"  log: {o.log}" if o.log else ""
                lines.append(f"  FAILED [{o.label}] {o.reason}{where}")
            return lines
        causes: dict[str, list[str]] = {}
        for o in bad:
            causes.setdefault(o.reason, []).append(o.label)
        for reason, labels in sorted(causes.items(), key=lambda kv: -len(kv[1])):
            lines.append(f"  FAILED {len(labels)} worker(s), {reason}: {ranges(labels)}")
        if self.log_dir is not None:
            lines.append(f"  logs: {self.log_dir}/<worker>.log")
        return lines

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": not self.failed,
            "exit_code": self.exit_code,
            "interrupted": self.interrupted,
            "log_dir": str(self.log_dir) if self.log_dir else None,
            "notes": list(self.notes),
            "workers": [
                {
                    "worker": o.label,
                    "status": o.status,
                    "reason": o.reason,
                    "exit_code": o.exit_code,
                    "attempts": o.attempts,
                    "seconds": round(o.seconds, 3),
                    "log": str(o.log) if o.log else None,
                }
                for o in self.outcomes
            ],
        }


def ranges(labels: Sequence[str]) -> str:
    """["w0", "w1", "w2", "w7", "s1/w3"] -> "w0-2, w7, s1/w3": runs of consecutive worker
    numbers under one prefix; at most MAX_RANGES of them, then how many workers are left."""
    runs: list[tuple[str, int, int]] = []
    loose: list[str] = []
    for label in labels:
        found = re.fullmatch(r"(.*?)(\d+)", label)
        if found is None:
            loose.append(label)
            continue
        prefix, n = found.group(1), int(found.group(2))
        if runs and runs[-1][0] == prefix and runs[-1][2] == n - 1:
            runs[-1] = (prefix, runs[-1][1], n)
        else:
            runs.append((prefix, n, n))
    parts = [(f"{p}{a}" if a == b else f"{p}{a}-{b}", b - a + 1) for p, a, b in runs]
    parts += [(label, 1) for label in loose]
    text = ", ".join(t for t, _ in parts[:MAX_RANGES])
    if len(parts) > MAX_RANGES:
        text += f", and {sum(n for _, n in parts[MAX_RANGES:])} more"
    return text
