"""cli/workload_view.py: the one renderer of every kind's results (text, JSON, YAML)."""

from __future__ import annotations

import json

import pytest

from xcli.cli import workload_view as view
from xcli.workload.protocol import Lazy, Listing, LogLine, Outcome, Report, Table

TABLE = Table(("NAME", "STATE"), (("a", "running"),))


def test_a_report_prints_its_data_or_its_text_and_reads_lazy_lines_only_for_text(
    capsys: pytest.CaptureFixture[str],
) -> None:
    made: list[str] = []

    def line() -> str:
        made.append("read")
        return "goodput: 90%"

    report = Report({"name": "a"}, ("workload a: running", Lazy(line), TABLE))
    assert view.report("json", report) == 0
    assert json.loads(capsys.readouterr().out) == {"name": "a"} and made == []
    assert view.report("text", report) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[:2] == ["workload a: running", "goodput: 90%"] and made == ["read"]
    assert out[2].split() == ["NAME", "STATE"] and out[3].split() == ["a", "running"]


def test_a_listing_says_when_it_is_empty_on_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    empty = Listing([], TABLE, "no workloads on cluster demo")
    view.listing("text", empty)
    assert capsys.readouterr() == ("", "no workloads on cluster demo\n")
    view.listing("json", empty)
    assert capsys.readouterr() == ("[]\n", "")


def test_log_lines_keep_each_kinds_json_shape(capsys: pytest.CaptureFixture[str]) -> None:
    lines = [
        LogLine("[w0]", "step 1"),  # a JobSet worker's line
        LogLine("[w1]", "no logs (Pending)", note=True),  # what xcli says about a worker
        LogLine("[s1/w2]", "step 1", None),  # a VM run's line: no note field
    ]
    view.log_lines("json", lines)
    records = [json.loads(r) for r in capsys.readouterr().out.splitlines()]
    assert records == [
        {"worker": "w0", "line": "step 1", "note": False},
        {"worker": "w1", "line": "no logs (Pending)", "note": True},
        {"worker": "s1/w2", "line": "step 1"},
    ]
    view.log_lines("text", lines)
    out, err = capsys.readouterr()
    assert out.splitlines() == ["[w0] step 1", "[s1/w2] step 1"]
    assert err.splitlines() == ["[w1] no logs (Pending)"]


def test_an_outcome_is_its_exit_code(capsys: pytest.CaptureFixture[str]) -> None:
    late = Outcome(124, {"workload": "a", "result": "timeout"}, "workload a: still not finished")
    assert view.outcome("text", late) == 124
    assert capsys.readouterr() == ("", "workload a: still not finished\n")
    assert view.outcome("json", late) == 124
    assert json.loads(capsys.readouterr().out)["result"] == "timeout"
