"""`xcli workload report`: one self-contained HTML page of a workload. Pure.

Inline SVG and one inline style sheet: no script, no font, nothing fetched. The same verdict
and goodput data give the same bytes (no clock, no random ids, fixed number formats). Every
block has a fixed height, so a block's place on the page does not depend on the fonts of the
machine that renders it (the Chromium test, tests/workload/stragglers/test_report_chromium.py,
samples pixels at places computed from LAYOUT).

Blocks, top to bottom (docs/stragglers.md describes each):
1. the header: the goodput fractions, the time lost to stragglers, the stragglers named;
2. the heatmap: one row per worker (above MAX_ROWS workers, one per range of hosts of a slice,
   coloured by the range's latest), one column per window, coloured by the worker's median
   lateness in that window over the flagging threshold; flagged cells outlined, straggler rows
   labelled in red;
3. the timeline: the run from submission to its end, each segment (every worker running) as a
   bar, each interruption a red tick with its cause, and the wall time split into productive
   time and each badput cause;
4. step time and MFU per window.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from html import escape
from itertools import pairwise
from typing import Any

from xcli.workload.stragglers.model import Verdict

MAX_ROWS = 256  # above this many workers the heatmap groups them (slice, then host ranges)
WIDTH = 1100


@dataclass(frozen=True)
class Layout:
    """Where the heatmap's cells are on the page, in CSS pixels (the page has no margin)."""

    header: int = 120
    heat_title: int = 28
    label: int = 150  # the row labels' column
    plot: int = 880  # the cells' width, all windows together
    rows_height: int = 512  # all rows together (each at least 2 px: beyond, the SVG grows)

    def row_height(self, rows: int) -> float:
        return max(2.0, min(24.0, self.rows_height / max(1, rows)))

    def heat_top(self) -> int:
        return self.header + self.heat_title


LAYOUT = Layout()
BADPUT_COLOURS = {
    "productive": "#1a9850",
    "queued": "#bdbdbd",
    "provisioning": "#969696",
    "startup": "#fdae61",
    "lost_since_checkpoint": "#d73027",
    "resume": "#f46d43",
    "reschedule": "#74add1",
    "other": "#525252",
    "stragglers": "#762a83",
}
STYLE = (
    "body{margin:0;font:13px sans-serif;color:#222;background:#fff}"
    ".b{overflow:hidden;padding:0 10px;box-sizing:border-box}"
    "h1{font-size:18px;margin:8px 0 4px}h2{font-size:15px;margin:6px 0}"
    "p{margin:2px 0}svg{display:block}.s{color:#b2182b;font-weight:bold}"
)


@dataclass(frozen=True)
class Row:
    label: str
    values: tuple[float | None, ...]  # per window: lateness over the window's threshold
    flagged: tuple[bool, ...]
    straggler: bool


def heat_rows(verdict: Verdict) -> list[Row]:
    """One row per worker, or above MAX_ROWS one per host range of a slice (its worst)."""
    thresholds = [w.threshold_seconds or 1.0 for w in verdict.windows]
    middles = [w.median_lateness for w in verdict.windows]
    named = {s.worker for s in verdict.stragglers}

    def scaled(values: Sequence[float | None]) -> tuple[float | None, ...]:
        return tuple(
            None if v is None else max(0.0, (v - m) / t)
            for v, m, t in zip(values, middles, thresholds, strict=True)
        )

    rows = verdict.workers
    if len(rows) <= MAX_ROWS:
        return [Row(r.worker, scaled(r.lateness), r.flagged, r.worker in named) for r in rows]
    slices: dict[str, list[int]] = {}
    for n, r in enumerate(rows):
        slices.setdefault(r.worker.partition("/")[0] if "/" in r.worker else "s0", []).append(n)
    size = math.ceil(len(rows) / max(1, MAX_ROWS - len(slices)))
    out = []
    for members in slices.values():
        for lo in range(0, len(members), size):
            group = [rows[n] for n in members[lo : lo + size]]
            cols = list(zip(*(scaled(r.lateness) for r in group), strict=True))
            flags = list(zip(*(r.flagged for r in group), strict=True))
            first, last = group[0].worker, group[-1].worker.rpartition("/")[2]
            out.append(
                Row(
                    f"{first}-{last}" if len(group) > 1 else first,
                    tuple(max((v for v in c if v is not None), default=None) for c in cols),
                    tuple(any(f) for f in flags),
                    any(r.worker in named for r in group),
                )
            )
    return out


def colour(value: float | None) -> str:
    """0 (on time) pale yellow, 1 (at the threshold) orange, 2 and more dark red; grey: none."""
    if value is None:
        return "#d9d9d9"
    stops = ((0.0, (255, 255, 204)), (1.0, (253, 141, 60)), (2.0, (128, 0, 38)))
    v = min(2.0, value)
    for (a, ca), (b, cb) in pairwise(stops):
        if v <= b:
            f = (v - a) / (b - a)
            rgb = tuple(round(x + (y - x) * f) for x, y in zip(ca, cb, strict=True))
            return "#{:02x}{:02x}{:02x}".format(*rgb)
    return "#800026"


def _num(x: float) -> str:
    return f"{x:.1f}".rstrip("0").rstrip(".")


def heatmap(verdict: Verdict) -> str:
    rows = heat_rows(verdict)
    lay = LAYOUT
    h = lay.row_height(len(rows))
    cols = max(1, len(verdict.windows))
    w = lay.plot / cols
    height = math.ceil(h * len(rows)) + 20
    parts = [f'<svg width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}">']
    for i, row in enumerate(rows):
        y = i * h
        if h >= 9 and (len(rows) <= 64 or row.straggler):
            style = ' class="s" fill="#b2182b"' if row.straggler else ""
            mark = " \u25c0" if row.straggler else ""
            parts.append(
                f'<text x="{lay.label - 6}" y="{_num(y + h * 0.75)}" text-anchor="end"'
                f' font-size="{min(12, int(h))}"{style}>{escape(row.label)}{mark}</text>'
            )
        elif row.straggler:
            parts.append(
                f'<rect x="{lay.label - 8}" y="{_num(y)}" width="6" height="{_num(h)}" '
                'fill="#b2182b"/>'
            )
        for j, value in enumerate(row.values):
            x = lay.label + j * w
            edge = ' stroke="#000" stroke-width="1"' if row.flagged[j] else ""
            parts.append(
                f'<rect x="{_num(x)}" y="{_num(y)}" width="{_num(w)}" height="{_num(h)}" '
                f'fill="{colour(value)}"{edge}/>'
            )
    axis = height - 6
    for j, win in enumerate(verdict.windows):
        if cols <= 20 or j % math.ceil(cols / 20) == 0:
            parts.append(
                f'<text x="{_num(lay.label + j * w + 2)}" y="{axis}" font-size="10">'
                f"{win.first_step}</text>"
            )
    parts.append("</svg>")
    return "".join(parts)


def _t(at: str) -> float:
    return datetime.fromisoformat(at).timestamp()


def timeline(goodput: Mapping[str, Any]) -> str:
    """Segments and interruptions over the run, and the wall time by bucket."""
    height = 160
    parts = [f'<svg width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}">']
    start, end = goodput.get("submitted"), goodput.get("end")
    left, span = 150, 900
    if start and end and _t(end) > _t(start):
        t0, t1 = _t(start), _t(end)

        def x(at: float) -> str:
            return _num(left + (at - t0) / (t1 - t0) * span)

        parts.append(f'<text x="{left - 6}" y="30" text-anchor="end">segments</text>')
        parts.append(f'<rect x="{left}" y="18" width="{span}" height="18" fill="#f0f0f0"/>')
        for n, seg in enumerate(goodput.get("segments") or []):
            a, b = _t(seg["start"]), _t(seg["end"])
            parts.append(
                f'<rect x="{x(a)}" y="18" width="{_num(max(1.0, float(x(b)) - float(x(a))))}" '
                f'height="18" fill="#4393c3"><title>attempt {n}: {escape(seg["start"])} to '
                f"{escape(seg['end'])}</title></rect>"
            )
        for item in goodput.get("interruptions") or []:
            at = x(_t(item["time"]))
            parts.append(
                f'<line x1="{at}" x2="{at}" y1="12" y2="42" stroke="#d73027" stroke-width="2"/>'
                f'<text x="{at}" y="54" font-size="10" fill="#d73027">'
                f"{escape(str(item['cause']))}</text>"
            )
        parts.append(
            f'<text x="{left}" y="70" font-size="10">{escape(start)}</text>'
            f'<text x="{left + span}" y="70" font-size="10" text-anchor="end">'
            f"{escape(end)}</text>"
        )
    wall = float(goodput.get("wall_seconds") or 0.0)
    buckets = [("productive", float(goodput.get("productive_seconds") or 0.0))]
    buckets += [(k, float(v or 0.0)) for k, v in (goodput.get("badput") or {}).items()]
    parts.append(f'<text x="{left - 6}" y="96" text-anchor="end">wall time</text>')
    cursor = float(left)
    for key, seconds in buckets:
        if wall <= 0 or seconds <= 0:
            continue
        width = seconds / wall * span
        parts.append(
            f'<rect x="{_num(cursor)}" y="84" width="{_num(width)}" height="18" '
            f'fill="{BADPUT_COLOURS.get(key, "#000")}"><title>{key} {seconds:.1f}s</title></rect>'
        )
        cursor += width
    for n, (key, seconds) in enumerate(buckets):  # the legend: two rows of four
        lx, ly = left + (n % 4) * 200, 112 + (n // 4) * 16
        parts.append(
            f'<rect x="{lx}" y="{ly}" width="10" height="10" '
            f'fill="{BADPUT_COLOURS.get(key, "#000")}"/><text x="{lx + 14}" y="{ly + 9}" '
            f'font-size="10">{key.replace("_", " ")} {seconds:.1f}s</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def step_chart(verdict: Verdict, goodput: Mapping[str, Any]) -> str:
    """Step time (blue) and MFU (green) per window. MFU per window scales the report's MFU
    by its median step over the window's: the FLOPs of a step do not change."""
    height, left, span, top, plot = 170, 150, 880, 14, 120
    parts = [f'<svg width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}">']
    times = [w.step_seconds for w in verdict.windows]
    known = [t for t in times if t]
    mfu0, step0 = goodput.get("program_goodput"), goodput.get("step_seconds")
    mfus = [mfu0 * step0 / t if mfu0 and step0 and t else None for t in times]
    parts.append(f'<rect x="{left}" y="{top}" width="{span}" height="{plot}" fill="#fafafa"/>')
    if known:
        top_value = max(known) * 1.1
        n = len(times)

        def pts(values: Sequence[float | None], scale: float) -> str:
            return " ".join(
                f"{_num(left + (i + 0.5) * span / n)},{_num(top + plot - v / scale * plot)}"
                for i, v in enumerate(values)
                if v
            )

        parts.append(
            f'<polyline points="{pts(times, top_value)}" fill="none" stroke="#2166ac" '
            'stroke-width="2"/>'
        )
        parts.append(
            f'<text x="{left - 6}" y="{top + 10}" text-anchor="end" fill="#2166ac">'
            f"{top_value:.3f}s</text>"
        )
        if any(mfus):
            parts.append(
                f'<polyline points="{pts(mfus, 1.0)}" fill="none" stroke="#1a9850" '
                'stroke-width="2"/>'
            )
    mfu_text = "MFU: unknown (no flops_per_step)" if not any(mfus) else "MFU (green, 0-100%)"
    parts.append(
        f'<text x="{left}" y="{top + plot + 16}" font-size="11">step time per window (blue), '
        f"{mfu_text}</text></svg>"
    )
    return "".join(parts)


def _pct(value: Any) -> str:
    return "-" if value is None else f"{float(value) * 100:.1f}%"


def header(verdict: Verdict, goodput: Mapping[str, Any]) -> str:
    named = ", ".join(
        f"{s.worker} ({s.kind}, +{s.lateness_seconds * 1000:.0f} ms)"
        for s in verdict.stragglers[:8]
    )
    more = len(verdict.stragglers) - 8
    named += f" and {more} more" if more > 0 else ""
    return (
        f'<div class="b" style="height:{LAYOUT.header}px">'
        f"<h1>workload {escape(verdict.name)}</h1>"
        f"<p>goodput: scheduling {_pct(goodput.get('scheduling_goodput'))}, runtime "
        f"{_pct(goodput.get('runtime_goodput'))}, program {_pct(goodput.get('program_goodput'))}"
        f"; {len(verdict.workers)} workers, {verdict.steps} steps judged</p>"
        f"<p>time lost to stragglers: {verdict.time_lost_seconds:.1f}s (slowest minus median "
        "arrival per step, inside productive time)</p>"
        f'<p>stragglers: <span class="s">{escape(named or "none")}</span></p></div>'
    )


def render(verdict: Verdict, goodput: Mapping[str, Any]) -> str:
    lay = LAYOUT
    return "".join(
        [
            '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">',
            f"<title>xcli report: {escape(verdict.name)}</title><style>{STYLE}</style></head>",
            "<body>",
            header(verdict, goodput),
            f'<div class="b" style="height:{lay.heat_title}px"><h2>lateness per worker and '
            f"window of {verdict.window} steps (yellow on time, red late, outlined: flagged)"
            "</h2></div>",
            heatmap(verdict),
            '<div class="b" style="height:28px"><h2>timeline</h2></div>',
            timeline(goodput),
            '<div class="b" style="height:28px"><h2>step time and MFU</h2></div>',
            step_chart(verdict, goodput),
            "</body></html>\n",
        ]
    )
