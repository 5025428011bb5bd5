"""`xcli workload goodput --source cloud-logging` against recorded logging.v2 answers.

The entries are what ml-goodput-measurement's GoodputRecorder writes through google-cloud-logging
(one INFO entry per record_* call, the dict as jsonPayload, the logger name as label
`python_logger`), for a run that restarted once: steps 0..5, a restart that resumes at step 3
(so from the checkpoint of step 2), steps 3..7, then the end. Every request body and every
answer is checked against the logging.v2 discovery document of the pinned client wheel.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import Any

import pytest
import responses

from tests.support.discovery import check_request, check_value
from xcli.cli.deps import Dependencies
from xcli.cli.errors import run_guarded
from xcli.cli.main import cli
from xcli.gateways.google.cloud_logging import LoggingGateway
from xcli.workload.backends import WorkloadGateways
from xcli.workload.goodput.mgm import mgm_timeline

URL = "https://logging.googleapis.com/v2/entries:list"
T0 = 1_795_000_000.0  # 2026-11-18T11:06:40Z: the job's first start, POSIX seconds
LOG = "projects/my-proj/logs/goodput_train-1"
ARGS = ["workload", "goodput", "train-1", "--cluster", "demo", "--project", "my-proj"]
FILTER = (
    'logName="projects/my-proj/logs/goodput_train-1" AND severity=INFO '
    'AND jsonPayload.job_name="train-1"'
)


def _ts(at: float) -> str:
    return datetime.fromtimestamp(at, timezone.utc).isoformat().replace("+00:00", "Z")


def entry(n: int, logged: float, **payload: Any) -> dict[str, Any]:
    """One LogEntry as entries:list returns it; `logged`: when the record_* call ran."""
    return {
        "insertId": f"1q2w3e{n:04d}",
        "jsonPayload": {"job_name": "train-1", **payload},
        "resource": {"type": "global", "labels": {"project_id": "my-proj"}},
        "timestamp": _ts(logged),
        "severity": "INFO",
        "labels": {"python_logger": "_ml_goodput_async.goodput_train-1.140234"},
        "logName": LOG,
        "receiveTimestamp": _ts(logged + 1.5),
    }


def run_entries() -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = [
        entry(0, T0, job_start_time=T0),
        entry(1, T0 + 1, tpu_init_start_time=T0 + 1),
        entry(2, T0 + 11, tpu_init_end_time=T0 + 11),
    ]
    rows += [
        entry(3 + s, T0 + 20 + 10 * s, step_count=s, step_start_time=T0 + 20 + 10 * s)
        for s in range(6)  # steps 0..5 at +20..+70; the program dies after step 5 started
    ]
    rows.append(entry(9, T0 + 100, job_start_time=T0 + 100))
    rows += [  # resumed at step 3 (from the checkpoint of step 2): steps 3..7 at +130..+170
        entry(10 + s, T0 + 100 + 10 * s, step_count=s, step_start_time=T0 + 100 + 10 * s)
        for s in range(3, 8)
    ]
    # written late, backfilled: only the payload carries the event's time
    rows.append(entry(15, T0 + 190, job_end_time=T0 + 185))
    return rows


def _answer(entries: list[dict[str, Any]], token: str = "") -> dict[str, Any]:
    answer: dict[str, Any] = {"entries": entries}
    if token:
        answer["nextPageToken"] = token
    check_value("logging.v2", {"$ref": "ListLogEntriesResponse"}, answer, "answer")
    return answer


def _deps() -> Dependencies:
    from google.auth.credentials import AnonymousCredentials
    from google.auth.transport.requests import AuthorizedSession

    session = AuthorizedSession(AnonymousCredentials())  # type: ignore[no-untyped-call]
    return Dependencies(workload_gateways=WorkloadGateways(logging=LoggingGateway(session)))


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = run_guarded(cli, args, debug=False, obj=_deps())
    out, err = capsys.readouterr()
    return code, out, err


def _recorded(pages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Serve `pages` in order; the request bodies, checked against the discovery document."""
    bodies: list[dict[str, Any]] = []

    def answer(request: Any) -> tuple[int, dict[str, str], str]:
        body = json.loads(request.body)
        check_request("logging.entries.list", "POST", request.url, body, doc="logging.v2")
        bodies.append(body)
        return 200, {}, json.dumps(pages[len(bodies) - 1])

    responses.add_callback("POST", URL, callback=answer)
    return bodies


@responses.activate
def test_a_run_that_restarted_once(capsys: pytest.CaptureFixture[str]) -> None:
    rows = run_entries()
    bodies = _recorded([_answer(rows[:7], "page-2"), _answer(rows[7:])])
    code, out, err = _run([*ARGS, "--source", "cloud-logging", "-o", "json"], capsys)
    assert (code, err) == (0, "")
    # pagination: the second page asked for with the first page's token, nothing else changed
    assert [b.get("pageToken") for b in bodies] == [None, "page-2"]
    assert {k: v for k, v in bodies[1].items() if k != "pageToken"} == bodies[0]
    report = json.loads(out)
    assert report["scheduling_goodput"] is None
    # held 70 + 85 s; productive 30 (steps 0..3 before the restart) + 50 (steps 3..7)
    assert report["runtime_goodput"] == round(80 / 155, 4)
    assert report["program_goodput"] is None
    assert report["badput"] == {
        "queued": 0.0,
        "provisioning": 0.0,
        "startup": 20.0,  # job start to step 0
        "lost_since_checkpoint": 20.0,  # steps 3 and 4 done twice (MGM's wasted progress)
        "resume": 30.0,  # second job start to its first step
        "reschedule": 30.0,  # last record before the restart to the second job start
        "restarted_from_scratch": 0.0,  # step 3 after checkpoint 2
        "other": 5.0,  # after step 7's expected end (+180) to job_end_time (+185)
    }
    assert (report["steps"], report["wall_seconds"], report["held_seconds"]) == (7, 185.0, 155.0)
    assert (report["productive_seconds"], report["step_seconds"]) == (80.0, 10.0)
    assert report["last_checkpoint"] == 2
    [stop] = report["interruptions"]
    assert stop["time"] == "2026-11-18T11:07:50.000+00:00"  # step 5's start, T0 + 70
    assert (stop["cause"], stop["step_reached"], stop["checkpoint_resumed_from"]) == (
        "restart",
        5,
        2,
    )
    assert (stop["lost_since_checkpoint"], stop["reschedule"], stop["resume"]) == (
        20.0,
        30.0,
        30.0,
    )
    assert "ml-goodput-measurement tpu_init: 10.000 s (within startup/resume)" in report["notes"]
    assert report["notes"][0].startswith("scheduling_goodput: null")


@responses.activate
def test_the_text_report_says_why_mfu_is_unknown(capsys: pytest.CaptureFixture[str]) -> None:
    rows = run_entries()
    _recorded([_answer(rows)])
    code, out, err = _run([*ARGS, "--source", "cloud-logging"], capsys)
    assert (code, err) == (0, "")
    assert "records carry no FLOPs per step" in out
    assert "print the model FLOPs of one step once" not in out  # the marks' hint


@responses.activate
def test_the_live_request_is_the_dry_run_one(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run([*ARGS, "--source", "cloud-logging", "--dry-run", "-o", "json"], capsys)
    assert (code, err) == (0, "")
    [step] = json.loads(out)["plan"]
    assert step["api"] == "logging.entries.list"
    planned = step["request"]
    assert planned["body"] == {
        "resourceNames": ["projects/my-proj"],
        "filter": FILTER,
        "orderBy": "timestamp asc",
        "pageSize": 1000,
    }
    assert not responses.calls  # a dry-run sends nothing
    bodies = _recorded([_answer(run_entries())])
    code, out, _err = _run([*ARGS, "--source", "cloud-logging"], capsys)
    assert code == 0
    assert bodies == [planned["body"]]
    assert responses.calls[0].request.url == planned["url"]
    assert out.startswith("workload train-1: goodput: scheduling -, runtime 51.6%, program -")


@responses.activate
def test_log_and_job_names_are_the_flags(capsys: pytest.CaptureFixture[str]) -> None:
    flags = ["--log-name", "runs/goodput_x", "--job-name", "x-7", "--dry-run", "-o", "json"]
    code, out, _err = _run([*ARGS, "--source", "cloud-logging", *flags], capsys)
    assert code == 0
    body = json.loads(out)["plan"][0]["request"]["body"]
    assert body["filter"] == (
        'logName="projects/my-proj/logs/runs%2Fgoodput_x" AND severity=INFO '
        'AND jsonPayload.job_name="x-7"'
    )


@pytest.mark.parametrize(
    ("status", "reason", "hint"),
    [
        (403, "PERMISSION_DENIED", "roles/logging.viewer"),
        (404, "NOT_FOUND", "check --project"),
    ],
)
@responses.activate
def test_a_refused_read_is_one_error_and_one_hint(
    status: int, reason: str, hint: str, capsys: pytest.CaptureFixture[str]
) -> None:
    error = {"error": {"code": status, "message": "The caller may not list", "status": reason}}
    responses.add("POST", URL, json=error, status=status)
    code, out, err = _run([*ARGS, "--source", "cloud-logging"], capsys)
    assert (code, out) == (1, "")
    lines = err.splitlines()
    assert len(lines) == 2, err
    assert lines[0].startswith("error: reading Cloud Logging entries of projects/my-proj: ")
    assert f"(HTTP {status})" in lines[0]
    assert lines[1].startswith("hint: ") and hint in lines[1]


@responses.activate
def test_no_records_is_one_error(capsys: pytest.CaptureFixture[str]) -> None:
    _recorded([_answer([])])
    code, _out, err = _run([*ARGS, "--source", "cloud-logging"], capsys)
    assert code == 1
    assert err.startswith("error: no ml-goodput-measurement records of job train-1 in ")
    assert len(err.splitlines()) == 2


def test_a_restart_inside_one_attempt_and_a_run_still_going() -> None:
    """No second job_start_time: the repeated step_count alone splits the attempts."""
    payloads = [{"job_start_time": 0.0}] + [
        {"step_count": n, "step_start_time": float(t)}
        for n, t in ((0, 5), (1, 10), (2, 15), (1, 40), (2, 45))
    ]
    tl = mgm_timeline(payloads, now=50.0)
    assert tl is not None
    assert [(s.start, s.end) for s in tl.segments] == [(0.0, 15.0), (40.0, None)]
    assert not tl.finished and tl.end == 50.0
    assert [(m.at, m.value) for m in tl.marks if m.key == "checkpoint"] == [(10.0, 0.0)]


def test_custom_badput_and_no_job_start_are_noted() -> None:
    payloads: list[dict[str, Any]] = [
        {"step_count": 0, "step_start_time": 10.0},
        {"custom_badput_event_type": "eval_step", "custom_badput_event_start_time": 12.0},
        {"custom_badput_event_type": "eval_step", "custom_badput_event_end_time": 14.5},
        {"step_count": 1, "step_start_time": 20.0},
        {"job_end_time": 25.0, "job_name": "not a time"},
    ]
    tl = mgm_timeline(payloads, now=99.0)
    assert tl is not None and tl.finished and (tl.submitted, tl.end) == (10.0, 25.0)
    assert tl.notes[1:] == (
        "no job_start_time record: the first step starts the run",
        "ml-goodput-measurement custom EVAL_STEP: 2.500 s (counted as productive here)",
    )
    assert mgm_timeline([{"job_name": "x"}], now=1.0) is None
