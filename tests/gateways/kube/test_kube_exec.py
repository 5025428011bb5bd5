"""The pods/exec gateway (gateways/kube/exec.py) against a loopback server speaking the
kubelet's exec protocol and running the command for real: output, exit codes, the error
channel, and a bounded number of streams open at once."""

from __future__ import annotations

import sys
import time

from tests.gateways.kube.exec_server import ExecServer, exec_server
from xcli.gateways.kube.exec import ExecTarget, run, run_all
from xcli.plan.profile import pod_exec_path

__all__ = ["exec_server"]


def _target(server: str, pod: str, argv: list[str]) -> ExecTarget:
    path = pod_exec_path("default", pod, "main", argv)
    return ExecTarget(server, None, lambda: "tok-1", "default", pod, 0, exec_path=path)


def test_output_and_exit_code_come_back(exec_server: tuple[str, ExecServer]) -> None:
    server, fake = exec_server
    argv = [sys.executable, "-c", "import sys; print('out & about'); sys.exit(3)"]
    done = run(_target(server, "train-w-0-0-x", argv))
    assert (done.exit_code, done.stdout, done.error) == (3, "out & about\n", "")
    (path,) = fake.requests
    assert path == pod_exec_path("default", "train-w-0-0-x", "main", argv)
    assert "command=-c&command=import%20sys%3B" in path  # each argv element one parameter
    assert fake.headers[0]["authorization"] == "Bearer tok-1"
    ok = run(_target(server, "p", ["/bin/sh", "-c", "echo oops >&2"]))
    assert (ok.exit_code, ok.stderr) == (0, "oops\n")


def test_a_refused_stream_is_a_result_not_an_exception() -> None:
    target = ExecTarget("http://127.0.0.1:1", None, None, "default", "p", 0, exec_path="/x")
    done = run(target, timeout=2)
    assert done.exit_code is None and "cannot reach the cluster" in done.error


def test_many_pods_at_most_window_streams_at_once(exec_server: tuple[str, ExecServer]) -> None:
    server, fake = exec_server

    def slow(pod: str, argv: list[str]) -> tuple[int, bytes, bytes]:
        time.sleep(0.05)
        return 0, pod.encode(), b""

    fake.answer = slow
    targets = [_target(server, f"pod-{n}", ["true"]) for n in range(40)]
    results = run_all(targets, window=8)
    assert [r.stdout for r in results] == [f"pod-{n}" for n in range(40)]  # in order
    assert 1 < fake.most_open <= 8
