"""`xcli workload report`'s page (xcli/workload/stragglers/html.py): its golden, its bytes, its
grouping at 2,304 workers, and what a real headless Chromium draws of it (the straggler's row
visibly differs from a healthy row: pixels of the screenshot, not the HTML's text)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.support.png import read_png
from tests.workload.stragglers.synth import arrivals
from xcli.workload.stragglers.html import LAYOUT, MAX_ROWS, heat_rows, render
from xcli.workload.stragglers.verdict import judge

GOLDEN = Path(__file__).parents[2] / "goldens" / "stragglers" / "report.html"
START = 1_800_000_000.0

GOODPUT: dict[str, Any] = {
    "scheduling_goodput": 0.9,
    "runtime_goodput": 0.75,
    "program_goodput": 0.41,
    "interruptions": [
        {
            "time": "2027-01-15T08:00:30.000+00:00",
            "cause": "worker exit",
            "worker": "s0/w1",
            "exit_code": 137,
            "detail": "exit status 137",
            "step_reached": 10,
            "checkpoint_resumed_from": 5,
            "lost_since_checkpoint": 3.0,
            "reschedule": 2.0,
            "resume": 4.0,
        },
    ],
    "badput": {
        "queued": 0.0,
        "provisioning": 0.0,
        "startup": 4.0,
        "lost_since_checkpoint": 3.0,
        "resume": 4.0,
        "reschedule": 2.0,
        "other": 1.0,
    },
    "steps": 40,
    "wall_seconds": 80.0,
    "productive_seconds": 66.0,
    "step_seconds": 0.21,
    "submitted": "2027-01-15T08:00:00.000+00:00",
    "end": "2027-01-15T08:01:20.000+00:00",
    "segments": [
        {
            "start": "2027-01-15T08:00:00.000+00:00",
            "end": "2027-01-15T08:00:30.000+00:00",
            "ended_by": "worker exit",
        },
        {
            "start": "2027-01-15T08:00:32.000+00:00",
            "end": "2027-01-15T08:01:20.000+00:00",
            "ended_by": None,
        },
    ],
}


def _verdict(**kw: Any) -> Any:
    marks = arrivals(2, 4, 41, slow={"s1/w2": 0.15}, device=0.05, start=START, **kw)
    return judge("train-7", marks, window=5)


def test_golden(update_goldens: bool) -> None:
    page = render(_verdict(), GOODPUT)
    if update_goldens:
        GOLDEN.write_text(page, encoding="utf-8")
    assert page == GOLDEN.read_text(encoding="utf-8"), "report.html changed: --update-goldens"


def test_the_same_data_gives_the_same_bytes_and_nothing_is_fetched() -> None:
    page = render(_verdict(), GOODPUT)
    assert page == render(_verdict(), GOODPUT)
    assert not re.search(r"<script|<link|<img|<iframe|src=|href=|url\(|@import|https?:", page)
    assert page.count("<svg") == 3 and "s1/w2 \u25c0" in page


def test_above_256_workers_rows_are_host_ranges_of_a_slice() -> None:
    marks = arrivals(9, 256, 12, slow={"s4/w17": 0.2}, device=0.05, noise=0.0005)
    verdict = judge("big", marks, window=5)
    rows = heat_rows(verdict)
    assert len(rows) <= MAX_ROWS
    assert rows[0].label == "s0/w0-w9" and rows[-1].label.startswith("s8/")
    marked = [r.label for r in rows if r.straggler]
    assert marked == ["s4/w10-w19"]
    page = render(verdict, {})
    assert len(page.encode()) < 3_000_000


def _screenshot(page: Path, out: Path, height: int) -> None:
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        pytest.skip("needs chromium (scripts/test.sh installs Debian's package)")
    subprocess.run(
        [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
         "--force-device-scale-factor=1", f"--window-size=1100,{height}",
         f"--screenshot={out}", page.as_uri()],
        check=True, capture_output=True, timeout=120,
    )  # fmt: skip


def test_chromium_draws_the_stragglers_row_differently(tmp_path: Path) -> None:
    verdict = _verdict()
    page = tmp_path / "report.html"
    page.write_text(render(verdict, GOODPUT), encoding="utf-8")
    shot = tmp_path / "shot.png"
    rows = heat_rows(verdict)
    h = LAYOUT.row_height(len(rows))
    _screenshot(page, shot, int(LAYOUT.heat_top() + h * len(rows) + 40))
    image = read_png(shot)
    straggler = next(i for i, r in enumerate(rows) if r.straggler)
    cols = len(verdict.windows)
    cell = LAYOUT.plot / cols

    def colour_of(row: int, col: int) -> tuple[int, int, int]:
        x = int(LAYOUT.label + (col + 0.5) * cell)
        y = int(LAYOUT.heat_top() + (row + 0.5) * h)
        return image.pixel(x, y)

    for col in range(cols):
        late, healthy = colour_of(straggler, col), colour_of(0, col)
        distance = sum(abs(a - b) for a, b in zip(late, healthy, strict=True))
        assert distance > 150, (col, late, healthy)
        assert late[1] < 80 and healthy[1] > 200, (late, healthy)  # dark red vs pale yellow
    # every healthy row looks alike
    for row in range(len(rows)):
        if row != straggler:
            assert colour_of(row, 2)[1] > 200, (row, colour_of(row, 2))
