"""Ctrl-C during a wait: exit 130, `error: interrupted` and one hint saying what keeps running
and how to pick it up. In-process with a sleep hook that raises KeyboardInterrupt (as SIGINT
does in the main thread), and for real: SIGINT to a subprocess waiting between retries."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.cli.bad_input_sandbox import fake_credentials
from tests.cli.test_unreachable import WHERE as PROJECT_ZONE
from tests.cli.test_unreachable import Proxy, _env
from tests.support.workload_cluster import (
    JOBSETS,
    WHERE,
    Cluster,
    add_jobset,
    cluster,
    cond,
    set_up,
)
from xcli.workload.jobset import live as workload_live

__all__ = ["cluster"]  # the fixture
QUEUED = [cond("Suspended", "True", "SuspendedByKueue", "suspended", "2026-11-22T10:00:01Z")]


def test_ctrl_c_during_workload_wait(cluster: Cluster, capsys: pytest.CaptureFixture[str]) -> None:
    set_up(cluster.fake)
    add_jobset(cluster.fake, "v6e-256-x2", "w", QUEUED)
    assert f"{JOBSETS}/w" in cluster.fake.objects

    def ctrl_c(seconds: float, *_: object) -> None:
        raise KeyboardInterrupt

    cluster.live.sleep = ctrl_c
    code, _out, err = cluster.run(["workload", "wait", "w", *WHERE], capsys)
    assert code == 130
    lines = err.splitlines()
    assert lines[0] == "workload w: queued"
    assert lines[1:] == [
        "error: interrupted",
        "hint: wait again with `xcli workload wait w --cluster demo`, or stop it with "
        "`xcli workload delete w --cluster demo`",
    ]


def test_sigint_to_a_real_cli_waiting_between_retries(tmp_path: Path) -> None:
    """`cluster describe` with the proxy hanging up: xcli is sleeping between attempts (the
    transport budget) when SIGINT comes; it must end within a second, with one line + hint."""
    fake_credentials(tmp_path / "sa.json")
    proxy = Proxy("hangup")
    try:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "xcli",
                "cluster",
                "describe",
                "--cluster",
                "demo",
                *PROJECT_ZONE,
            ],
            env=_env(tmp_path, proxy.port),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        deadline = time.monotonic() + 30
        while proxy.connections < 1 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert proxy.connections >= 1, "the CLI never tried to connect"
        time.sleep(0.3)  # now in the sleep before the next attempt
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=20)
        took = time.monotonic() - sent
    finally:
        proxy.close()
    assert proc.returncode == 130, err
    lines = err.splitlines()
    assert len(lines) == 2 and lines[0] == "error: interrupted", err
    assert lines[1].startswith("hint: "), err
    assert "Traceback" not in err and out == ""
    assert took < 1.5, f"took {took:.2f}s to answer SIGINT"


def test_workload_wait_does_not_wait_forever_through_an_outage(
    cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    """Retryable API errors keep `workload wait` waiting, within a budget: a few seconds before
    anything has answered, ten minutes of outage once the workload has been seen."""
    import httpx2

    from tests.support.fakekube import status

    set_up(cluster.fake)
    queued = add_jobset(cluster.fake, "v6e-256-x2", "w", QUEUED)
    down = status(503, "ServiceUnavailable", "the server is currently unable to handle it")
    cluster.fake.script("GET", f"{JOBSETS}/w", *[down] * 50)
    code, _, err = cluster.run(["workload", "wait", "w", *WHERE], capsys)
    assert code == 1, err
    assert err.splitlines()[0].startswith("error: get JobSet w: 503"), err
    assert sum(cluster.clock.sleeps) <= workload_live.OUTAGE_BEFORE_FIRST_ANSWER + 15

    cluster.clock.sleeps.clear()  # seen once, then a long outage
    cluster.fake._script.clear()  # what the first run left of its 503s
    cluster.fake.script("GET", f"{JOBSETS}/w", httpx2.Response(200, json=queued), *[down] * 500)
    code, _, err = cluster.run(["workload", "wait", "w", *WHERE], capsys)
    assert code == 1, err
    lines = err.splitlines()
    assert lines[0] == "workload w: queued" and lines[1].startswith("error: get JobSet w: 503")
    assert len(lines) == 3 and lines[2].startswith("hint: ")
    waited = sum(cluster.clock.sleeps)
    assert workload_live.OUTAGE_SECONDS <= waited <= workload_live.OUTAGE_SECONDS + 15
