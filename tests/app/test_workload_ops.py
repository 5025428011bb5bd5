"""`xcli workload logs | delete | wait` against an in-memory Kubernetes API, fake clock."""

from __future__ import annotations

import json
import re

import httpx2
import pytest

from tests.support.fakekube import status
from tests.support.workload_cluster import (
    JOBSETS,
    NS,
    WHERE,
    Cluster,
    add_jobset,
    add_pod,
    cluster,
    cond,
    set_up,
)

__all__ = ["cluster"]  # the fixture

DONE = [cond("Completed", "True", "AllJobsCompleted", "jobset completed", "2026-11-22T11:30:00Z")]
FAILED = [cond("Failed", "True", "FailedJobs", "jobset failed", "2026-11-22T10:20:00Z")]
QUEUED = [cond("Suspended", "True", "SuspendedByKueue", "suspended", "2026-11-22T10:00:01Z")]


def _multislice(cluster: Cluster) -> None:
    set_up(cluster.fake)
    add_jobset(cluster.fake, "v6e-256-x2", "train-1", [], restarts=1)
    for s in range(2):
        for i in range(2):
            log = "".join(f"s{s} w{i} line {n}\n" for n in range(3))
            add_pod(cluster.fake, "train-1", s, i, "Running", attempt=1, log=log)
    add_pod(cluster.fake, "train-1", 0, 3, "Failed", code=143, attempt=0, log="old attempt\n")


def _log_requests(cluster: Cluster) -> list[httpx2.Request]:
    return [r for r in cluster.fake.requests if r.url.path.endswith("/log")]


def test_logs_of_every_worker_with_slice_prefixes(
    cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    _multislice(cluster)
    code, out, err = cluster.run(["workload", "logs", "train-1", *WHERE], capsys)
    assert code == 0, err
    assert out.splitlines() == [
        f"[s{s}/w{i}] s{s} w{i} line {n}" for s in range(2) for i in range(2) for n in range(3)
    ]
    assert "old attempt" not in out  # the pod of the earlier attempt is not the workload's now
    request = _log_requests(cluster)[0]
    assert request.url.params["container"] == "main" and "sinceSeconds" not in request.url.params


def test_logs_select_worker_and_slice_and_map_since(
    cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    _multislice(cluster)
    args = ["workload", "logs", "train-1", *WHERE, "--worker", "1", "--since", "10m"]
    code, out, _ = cluster.run(args, capsys)
    assert code == 0
    assert {line.split()[0] for line in out.splitlines()} == {"[s0/w1]", "[s1/w1]"}
    assert {r.url.params["sinceSeconds"] for r in _log_requests(cluster)} == {"600"}
    code, out, _ = cluster.run([*args[:3], *WHERE, "--slice", "1", "--worker", "0"], capsys)
    assert out.splitlines() == [f"[s1/w0] s1 w0 line {n}" for n in range(3)]


def test_a_worker_without_logs_yet_is_a_note_on_stderr(
    cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    _multislice(cluster)
    pod = "train-1-slice-0-1-abcde"
    waiting = f'container "main" in pod "{pod}" is waiting to start: ContainerCreating'
    cluster.fake.script("GET", f"{NS}/pods/{pod}/log", status(400, "BadRequest", waiting))
    code, out, err = cluster.run(["workload", "logs", "train-1", *WHERE, "--slice", "0"], capsys)
    assert code == 0
    assert out.splitlines() == [f"[s0/w0] s0 w0 line {n}" for n in range(3)]
    assert err.startswith("[s0/w1] no logs (Running): logs of pod train-1-slice-0-1-abcde: 400")
    assert "waiting to start" in err and cluster.clock.sleeps == []


def test_one_slice_prefixes_like_ssh(cluster: Cluster, capsys: pytest.CaptureFixture[str]) -> None:
    set_up(cluster.fake)
    add_jobset(cluster.fake, "v5litepod-16-x1", "small", [])
    add_pod(cluster.fake, "small", 0, 3, "Running", log="hello\nworld\n")
    code, out, _ = cluster.run(["workload", "logs", "small", *WHERE, "-o", "json"], capsys)
    assert code == 0
    assert [json.loads(line) for line in out.splitlines()] == [
        {"worker": "w3", "line": "hello", "note": False},
        {"worker": "w3", "line": "world", "note": False},
    ]


def _script_states(cluster: Cluster, name: str, *states: dict[str, object]) -> None:
    """The JobSet as successive GETs see it; after these, the stored object."""
    answers = (httpx2.Response(200, json=o) for o in states)
    cluster.fake.script("GET", f"{JOBSETS}/{name}", *answers)


def test_follow_waits_for_a_container_to_start_and_keeps_lines_whole(
    cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    _multislice(cluster)
    running = cluster.fake.objects[f"{JOBSETS}/train-1"]
    add_jobset(cluster.fake, "v6e-256-x2", "train-1", DONE, restarts=1)
    _script_states(cluster, "train-1", running, running)
    pod = "train-1-slice-1-1-abcde"
    waiting = f'container "main" in pod "{pod}" is waiting to start: ContainerCreating'
    cluster.fake.script("GET", f"{NS}/pods/{pod}/log", status(400, "BadRequest", waiting))
    args = ["workload", "logs", "train-1", *WHERE, "--follow", "--worker", "1"]
    code, out, err = cluster.run(args, capsys)
    assert code == 0, err
    lines = out.splitlines()
    assert len(lines) == 6
    assert all(re.fullmatch(r"\[s(\d)/w1\] s\1 w1 line \d", line) for line in lines)
    for s in (0, 1):  # each worker's lines whole and in its own order
        mine = [line for line in lines if line.startswith(f"[s{s}/w1]")]
        assert mine == [f"[s{s}/w1] s{s} w1 line {n}" for n in range(3)]
    assert all(r.url.params["follow"] == "true" for r in _log_requests(cluster))
    assert len([r for r in _log_requests(cluster) if pod in r.url.path]) == 2  # retried once
    assert cluster.clock.sleeps == [3.0]


def test_follow_moves_to_the_new_pods_after_a_restart(
    cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    set_up(cluster.fake)
    first = add_jobset(cluster.fake, "v5litepod-16-x1", "small", [])
    second = add_jobset(cluster.fake, "v5litepod-16-x1", "small", [], restarts=1)
    add_jobset(cluster.fake, "v5litepod-16-x1", "small", DONE, restarts=1)
    _script_states(cluster, "small", first, first, second)
    add_pod(cluster.fake, "small", 0, 0, "Failed", code=143, attempt=0, log="try 1\n")
    cluster.fake.logs["small-slice-0-0-fghij"] = "try 2\n"
    pod = cluster.fake.objects[f"{NS}/pods/small-slice-0-0-abcde"]
    again = {**pod, "metadata": {**pod["metadata"], "name": "small-slice-0-0-fghij"}}
    again["metadata"]["labels"] = {
        **pod["metadata"]["labels"],
        "jobset.sigs.k8s.io/restart-attempt": "1",
    }
    cluster.fake.put(f"{NS}/pods/small-slice-0-0-fghij", again)
    args = ["workload", "logs", "small", *WHERE, "--follow", "--worker", "0"]
    code, out, err = cluster.run(args, capsys)
    assert code == 0, err
    assert out.splitlines() == ["[w0] try 1", "[w0] try 2"]
    assert "workload small restarted (attempt 1)" in err
    assert cluster.clock.sleeps == []


def test_logs_refusals(cluster: Cluster, capsys: pytest.CaptureFixture[str]) -> None:
    _multislice(cluster)
    add_jobset(cluster.fake, "v6e-256-x2", "queued-1", QUEUED)
    code, _, err = cluster.run(["workload", "logs", "queued-1", *WHERE], capsys)
    assert code == 1 and "workload queued-1 has no pods yet" in err
    assert "xcli workload status queued-1" in err
    code, _, err = cluster.run(["workload", "logs", "train-1", *WHERE, "--worker", "7"], capsys)
    assert code == 1 and "no worker 7 in slice all" in err and "s1/w1" in err
    code, _, err = cluster.run(["workload", "logs", "train-1", *WHERE, "--worker", "x"], capsys)
    assert code == 1 and "--worker 'x' is not a number" in err
    code, _, err = cluster.run(["workload", "logs", "train-1", *WHERE, "--since", "10"], capsys)
    assert code == 1 and "has no unit" in err


def _finished(cluster: Cluster) -> None:
    set_up(cluster.fake)
    add_jobset(cluster.fake, "v5litepod-16-x1", "old-done", DONE, created="2026-11-22T08:00:00Z")
    add_jobset(cluster.fake, "v5litepod-16-x1", "new-done", DONE, created="2026-11-22T11:50:00Z")
    add_jobset(cluster.fake, "v5litepod-16-x1", "old-failed", FAILED)
    add_jobset(
        cluster.fake,
        "v5litepod-16-x1",
        "not-ours",
        DONE,
        created="2026-11-01T00:00:00Z",
        managed=False,
    )


def test_delete_by_state_and_age(cluster: Cluster, capsys: pytest.CaptureFixture[str]) -> None:
    _finished(cluster)
    args = ["workload", "delete", *WHERE, "--state", "succeeded", "--older-than", "1h"]
    code, _, err = cluster.run(args, capsys)
    # No terminal and no --yes: refused before the cluster is even read (issue 13)
    assert code == 1 and err.splitlines() == [
        "error: deleting the succeeded workloads on cluster demo needs confirmation",
        "hint: pass --yes to confirm",
    ]
    assert cluster.writes() == []
    code, _, err = cluster.run([*args, "--yes"], capsys)
    assert code == 0, err
    assert cluster.writes() == [("DELETE", f"{JOBSETS}/old-done")]
    assert f"{JOBSETS}/not-ours" in cluster.fake.objects
    code, _, err = cluster.run([*args, "--yes"], capsys)
    assert code == 0 and "no succeeded workloads older than 1h" in err


def test_delete_by_name(cluster: Cluster, capsys: pytest.CaptureFixture[str]) -> None:
    _finished(cluster)
    code, _, err = cluster.run(["workload", "delete", "nope", *WHERE, "--yes"], capsys)
    assert code == 1 and "no workload nope on cluster demo" in err
    assert cluster.writes() == []
    code, _, err = cluster.run(["workload", "delete", "old-failed", *WHERE], capsys)
    assert code == 1 and "deleting workload old-failed on cluster demo needs" in err
    assert cluster.writes() == []
    code, _, err = cluster.run(["workload", "delete", "old-failed", *WHERE, "--yes"], capsys)
    assert code == 0, err
    assert cluster.writes() == [("DELETE", f"{JOBSETS}/old-failed")]
    assert f"{JOBSETS}/old-failed" not in cluster.fake.objects


def test_delete_dry_run_prints_steps_and_sends_nothing(
    cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["workload", "delete", "train-1", *WHERE, "--dry-run", "-o", "json"]
    code, out, err = cluster.run(args, capsys)
    assert code == 0, err
    (step,) = json.loads(out)["plan"]
    assert step["kind"] == "k8s_delete" and step["name"] == "train-1"
    assert step["cluster"] == "projects/my-proj/locations/us-east5/clusters/demo"
    assert step["propagation"] == "Foreground" and step["resource"] == "jobsets"
    assert cluster.fake.requests == [] and cluster.refs == []
    # a selection on a dry-run: what the live run reads and keeps, then one delete per kept
    # JobSet, by a ref; nothing read or sent (issue 36)
    select = [*args[:2], *WHERE, "--state", "failed", "--dry-run", "-o", "json"]
    code, out, err = cluster.run(select, capsys)
    assert code == 0, err
    read, each = json.loads(out)["plan"]
    assert read["kind"] == "read_first" and read["object_kind"] == "JobSet"
    assert read["labels"] == {"app.kubernetes.io/managed-by": "xcli"}
    assert "keep the failed workloads" in read["summary"]
    assert each["kind"] == "k8s_delete" and each["name"] == "${select.each}"
    assert cluster.fake.requests == [] and cluster.refs == []
    assert cluster.run(["workload", "delete", *WHERE], capsys)[0] == 1  # no terminal, no --yes
    code, _, err = cluster.run(["workload", "delete", "a", *WHERE, "--older-than", "1d"], capsys)
    assert code == 1 and "error: --older-than selects workloads, so it goes without a NAME" in err


def test_delete_without_a_name_deletes_every_one_kept(
    cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    """XPK's `workload delete --cluster C` (every workload) and its --filter-by-job (a part of
    the name) and --filter-by-status (src/xpk/commands/workload.py:939-983 at 367c838253be)."""
    _finished(cluster)
    code, _, err = cluster.run(["workload", "delete", *WHERE, "--filter-by-job", "old", "--yes"],
                               capsys)  # fmt: skip
    assert code == 0, err
    assert "workloads whose name holds 'old': old-done, old-failed" in err
    assert sorted(cluster.writes()) == [
        ("DELETE", f"{JOBSETS}/old-done"), ("DELETE", f"{JOBSETS}/old-failed"),
    ]  # fmt: skip
    code, _, err = cluster.run(["workload", "delete", *WHERE, "--yes"], capsys)
    assert code == 0 and "workloads: new-done" in err  # what is left of xcli's
    assert f"{JOBSETS}/not-ours" in cluster.fake.objects  # never another tool's JobSet
    code, _, err = cluster.run(
        ["workload", "delete", *WHERE, "--filter-by-status", "QUEUED", "--yes"], capsys
    )
    assert code == 0 and "no queued workloads on cluster demo" in err


@pytest.mark.parametrize(
    ("conditions", "code", "word"), [(DONE, 0, "succeeded"), (FAILED, 1, "failed")]
)
def test_wait_exit_codes(
    cluster: Cluster,
    capsys: pytest.CaptureFixture[str],
    conditions: list[dict[str, str]],
    code: int,
    word: str,
) -> None:
    set_up(cluster.fake)
    add_jobset(cluster.fake, "v6e-256-x2", "w", conditions)
    queued = add_jobset(cluster.fake, "v6e-256-x2", "w", QUEUED)
    running = add_jobset(cluster.fake, "v6e-256-x2", "w", [])
    add_jobset(cluster.fake, "v6e-256-x2", "w", conditions)
    path = f"{JOBSETS}/w"
    cluster.fake.script("GET", path, *(httpx2.Response(200, json=o) for o in (queued, running)))
    got, out, err = cluster.run(["workload", "wait", "w", *WHERE, "-o", "json"], capsys)
    assert got == code
    assert err.splitlines()[:3] == [
        "workload w: queued",
        "workload w: running",
        f"workload w: {word}",
    ]
    assert json.loads(out) == {"workload": "w", "result": word, "exit_code": code}
    assert cluster.clock.sleeps == [2.0, 3.0]


def test_wait_outlives_an_api_server_hiccup(
    cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    set_up(cluster.fake)
    add_jobset(cluster.fake, "v6e-256-x2", "w", DONE)
    busy = status(503, "ServiceUnavailable", "the server is currently unable to handle the request")
    cluster.fake.script("GET", f"{JOBSETS}/w", busy)
    code, _, err = cluster.run(["workload", "wait", "w", *WHERE], capsys)
    assert code == 0, err
    assert cluster.clock.sleeps == [2.0]
    cluster.fake.script("GET", f"{JOBSETS}/w", status(403, "Forbidden", "no"))
    assert cluster.run(["workload", "wait", "w", *WHERE], capsys)[0] == 1  # not retryable


def test_wait_times_out_with_124(cluster: Cluster, capsys: pytest.CaptureFixture[str]) -> None:
    set_up(cluster.fake)
    add_jobset(cluster.fake, "v6e-256-x2", "w", [])
    code, _, err = cluster.run(["workload", "wait", "w", *WHERE, "--timeout", "10s"], capsys)
    assert code == 124
    assert "workload w: still not finished after 10s" in err
    assert cluster.clock.sleeps == [2.0, 3.0, 4.5, 0.5]  # never past the deadline
    code, _, err = cluster.run(["workload", "wait", "gone", *WHERE], capsys)
    assert code == 1 and "no workload gone" in err


@pytest.mark.parametrize("command", ["list", "status", "logs", "wait", "delete", "create"])
def test_every_command_has_examples(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    from xcli.cli.errors import run_guarded
    from xcli.cli.main import cli

    assert run_guarded(cli, ["workload", command, "--help"], debug=False) == 0
    out = capsys.readouterr().out
    assert "Examples:" in out and f"xcli workload {command}" in out
    assert "--project" in out and "--output" in out
    # --dry-run only where the command changes something (docs/dry-run.md)
    assert ("--dry-run" in out) == (command in ("delete", "create"))


def test_follow_waits_for_pods_of_a_queued_workload(
    cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    set_up(cluster.fake)
    queued = add_jobset(cluster.fake, "v5litepod-16-x1", "later", QUEUED)
    add_jobset(cluster.fake, "v5litepod-16-x1", "later", FAILED)  # ended before any pod ran
    _script_states(cluster, "later", queued, queued, queued)
    code, out, err = cluster.run(["workload", "logs", "later", *WHERE, "-f"], capsys)
    assert code == 0 and out == ""
    assert err.count("workload later: waiting for its pods") == 1
    assert cluster.clock.sleeps == [3.0, 3.0]


def test_wait_without_timeout_still_has_a_bound(
    cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 37: every wait has a bound, so a CI job never hangs (default 7d, said in --help)."""
    set_up(cluster.fake)
    add_jobset(cluster.fake, "v6e-256-x2", "w", [])
    code, _, err = cluster.run(["workload", "wait", "w", *WHERE], capsys)
    assert code == 124
    assert "workload w: still not finished after 7d" in err
    assert sum(cluster.clock.sleeps) == 7 * 86400
    code, _, err = cluster.run(["workload", "wait", "w", *WHERE, "--timeout", "400d"], capsys)
    assert code == 1 and "--timeout 400d is out of range" in err
