"""`xcli workload goodput`: scheduling, runtime and program goodput of a workload.

model.py (the Timeline a source gives and the Report's JSON shape), compute.py (the formulas),
vm.py and gke.py (the two sources: a VM-style run's record, a JobSet's Kubernetes objects and
timestamped pod logs), render.py (text). docs/goodput.md defines every number.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

FRACTIONS = ("scheduling_goodput", "runtime_goodput", "program_goodput")


def fractions(report: Mapping[str, Any]) -> dict[str, Any]:
    """The three fractions of a report (what `workload list --output json` carries)."""
    return {k: report[k] for k in FRACTIONS}
