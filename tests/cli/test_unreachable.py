"""Credentials present, no route to Google: exit 1, one error line naming the host, one hint.

The real CLI runs as a subprocess in a sandbox HOME with a fake service-account key, so the
Google clients really try to connect. Every proxy variable points at a loopback port and
NO_PROXY is empty, so nothing leaves this machine: the proxy is (a) a closed port, (b) a
listener that accepts and closes, (c) a listener that answers 502 to CONNECT, as a proxy does
for a host it cannot resolve. The retry budget for a host that cannot be reached
(backoff.TRANSPORT_BUDGET) keeps each run to seconds, not minutes.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.cli.bad_input_sandbox import fake_credentials

WHERE = ["--project", "my-proj", "--zone", "us-east5-b"]
COMMANDS = {
    "gke-list": ["cluster", "list"],
    "gke-describe": ["cluster", "describe", "--cluster", "demo"],
    "qr-list": ["cluster", "list", "--provider", "queued-resource"],
    "qr-describe": ["cluster", "describe", "--provider", "queued-resource", "--cluster", "demo"],
    "workload-list": ["workload", "list", "--cluster", "demo"],
    "workload-status": ["workload", "status", "train-1", "--cluster", "demo"],
}
HOSTS = {
    "gke-list": "container.googleapis.com",
    "gke-describe": "container.googleapis.com",
    "qr-list": "tpu.googleapis.com",
    "qr-describe": "tpu.googleapis.com",
    "workload-list": "container.googleapis.com",
    "workload-status": "container.googleapis.com",
}
REASONS = {
    "closed": "the proxy refused the connection",
    "hangup": "the connection was closed without an answer",
    "bad-gateway": "the proxy answered 502",
}
BOUND = 40.0  # seconds; a run takes about TRANSPORT_BUDGET (8 s) plus start-up


class Proxy:
    """A loopback listener standing in for a proxy: 'hangup' accepts and closes, 'bad-gateway'
    answers 502 to whatever it is asked. It records how many connections it saw."""

    def __init__(self, mode: str) -> None:
        self.mode = mode
        self.connections = 0
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.port = self.sock.getsockname()[1]
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.connections += 1
            threading.Thread(target=self._answer, args=(conn,), daemon=True).start()

    def _answer(self, conn: socket.socket) -> None:
        with conn:
            conn.settimeout(5)
            try:
                conn.recv(65536)
                if self.mode == "bad-gateway":
                    conn.sendall(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
            except OSError:
                pass

    def close(self) -> None:
        self.sock.close()


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def proxies() -> Iterator[dict[str, tuple[int, Proxy | None]]]:
    made = {mode: Proxy(mode) for mode in ("hangup", "bad-gateway")}
    try:
        yield {
            "closed": (_closed_port(), None),
            **{mode: (proxy.port, proxy) for mode, proxy in made.items()},
        }
    finally:
        for proxy in made.values():
            proxy.close()


def _env(home: Path, port: int) -> dict[str, str]:
    proxy = f"http://127.0.0.1:{port}"
    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    env = {k: v for k, v in env.items() if not k.startswith(("XCLI_", "GOOGLE_", "CLOUDSDK_"))}
    for var in ("HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY"):
        env[var] = env[var.lower()] = proxy
    env.update(
        HOME=str(home),
        NO_PROXY="",
        no_proxy="",
        GOOGLE_APPLICATION_CREDENTIALS=str(home / "sa.json"),
        CLOUDSDK_CONFIG=str(home / "gcloud"),
        XDG_CONFIG_HOME=str(home / ".config"),
        XCLI_HOME=str(home / ".state"),
    )
    return env


# Every command under two of the three faults, so each fault meets four commands.
CASES = [
    (name, mode)
    for i, name in enumerate(COMMANDS)
    for mode in (list(REASONS)[i % 3], list(REASONS)[(i + 1) % 3])
]


def test_no_route_to_google_is_one_line_and_a_hint(
    tmp_path: Path, proxies: dict[str, tuple[int, Proxy | None]]
) -> None:
    homes = {}
    for name, mode in CASES:
        home = tmp_path / f"{name}-{mode}"
        home.mkdir()
        fake_credentials(home / "sa.json")
        homes[(name, mode)] = home

    def run(case: tuple[str, str]) -> tuple[subprocess.CompletedProcess[str], float]:
        name, mode = case
        started = time.monotonic()
        done = subprocess.run(
            [sys.executable, "-m", "xcli", *COMMANDS[name], *WHERE],
            env=_env(homes[case], proxies[mode][0]),
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        return done, time.monotonic() - started

    with ThreadPoolExecutor(max_workers=6) as pool:  # they mostly wait: run them side by side
        results = dict(zip(CASES, pool.map(run, CASES), strict=True))

    for (name, mode), (done, seconds) in results.items():
        lines = done.stderr.splitlines()
        where = f"{name} via {mode}: {done.stderr}"
        assert done.returncode == 1, where
        assert len(lines) == 2, where
        assert lines[0].startswith("error: ") and lines[1].startswith("hint: "), where
        assert f"cannot reach {HOSTS[name]}" in lines[0], where
        assert f"through the proxy http://127.0.0.1:{proxies[mode][0]}" in lines[0], where
        assert REASONS[mode] in lines[0], where
        assert "HTTPS_PROXY" in lines[1] and "--dry-run" in lines[1], where
        assert "Traceback" not in done.stderr and done.stdout == "", where
        assert seconds < BOUND, f"{where} took {seconds:.1f}s"
        assert not list((homes[(name, mode)] / ".state").rglob("error-*.log")), where
    for mode in ("hangup", "bad-gateway"):
        proxy = proxies[mode][1]
        assert proxy is not None and proxy.connections > 0  # the clients really went through it
