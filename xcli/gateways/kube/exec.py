"""Running a command in a pod through the Kubernetes API's exec subresource (no kubectl).

The protocol (kubernetes/kubernetes commit 773559c0,
staging/src/k8s.io/apimachinery/pkg/util/remotecommand/constants.go lines 45-63: the
subprotocol names, `NonZeroExitCode`, the `ExitCode` cause and the stream ids), with the same
WebSocket channel framing as port-forward (gateways/kube/portforward.py, whose connection and
handshake this reuses):
- `GET /api/v1/namespaces/NS/pods/POD/exec?container=C&command=ARG...&stdout=true&stderr=true`
  upgraded with the subprotocol `v4.channel.k8s.io` ("adds support for exit codes");
- each binary message starts with a channel byte: 0 stdin, 1 stdout, 2 stderr, 3 the error
  stream, 4 resize; no port prefix, unlike port-forward;
- the error stream carries one JSON `metav1.Status` at the end: `{"status":"Success"}`, or
  `Failure` with `reason: NonZeroExitCode` and the exit code in `details.causes[]`
  (`reason: ExitCode`, `message: "<n>"`).

`run_all` runs one command per pod with at most `window` WebSockets open at once (a thread
each): 2,304 pods are 2,304 short exec streams, never 2,304 at once.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from xcli.errors import CloudError
from xcli.gateways.kube.portforward import Target, Tunnel

STDOUT, STDERR, ERROR = 1, 2, 3
WINDOW = 64  # exec streams open at once


@dataclass(frozen=True)
class ExecTarget(Target):
    """A port-forward Target whose path is the exec request's (the port is unused), built
    by xcli/plan/profile.py:pod_exec_path, so the dry-run prints the path sent."""

    exec_path: str = ""

    @property
    def path(self) -> str:
        return self.exec_path


@dataclass
class ExecResult:
    pod: str
    exit_code: int | None  # None: the command did not run (the stream failed; see error)
    stdout: str = ""
    stderr: str = ""
    error: str = ""


class _ExecStream(Tunnel):
    """The port-forward tunnel's connection, read with exec's channels."""

    def __init__(self, target: Target, timeout: float) -> None:
        self.out = bytearray()
        self.err = bytearray()
        self.status: dict[str, Any] | None = None
        super().__init__(target, timeout)

    def _message(self, message: bytes) -> bytes:
        if not message:
            return b""
        channel, payload = message[0], message[1:]
        if channel == STDOUT:
            self.out += payload
        elif channel == STDERR:
            self.err += payload
        elif channel == ERROR and payload:
            try:
                self.status = json.loads(payload)
            except ValueError:
                self.status = {"status": "Failure", "message": payload.decode(errors="replace")}
        return b""


def _exit_code(status: dict[str, Any] | None) -> tuple[int | None, str]:
    if status is None:
        return None, "the stream ended without a status"
    if status.get("status") == "Success":
        return 0, ""
    for cause in (status.get("details") or {}).get("causes") or []:
        if cause.get("reason") == "ExitCode":
            try:
                return int(cause.get("message", "")), ""
            except ValueError:
                break
    return None, str(status.get("message") or status.get("reason") or "exec failed")[:300]


def run(target: ExecTarget, timeout: float = 120.0) -> ExecResult:
    """Run the target's command; never raises for the pod's failure (it is in the result)."""
    try:
        stream = _ExecStream(target, timeout)
    except (CloudError, OSError) as exc:
        return ExecResult(target.pod, None, error=getattr(exc, "message", str(exc)))
    try:
        stream.sock.settimeout(timeout)
        while not stream.closed and stream.status is None:
            if stream.receive() is None:
                break
    except (OSError, CloudError) as exc:
        return ExecResult(target.pod, None, error=getattr(exc, "message", str(exc)))
    finally:
        stream.close()
    code, error = _exit_code(stream.status)
    return ExecResult(
        target.pod,
        code,
        bytes(stream.out).decode(errors="replace"),
        bytes(stream.err).decode(errors="replace"),
        error,
    )


def run_all(
    targets: Sequence[ExecTarget],
    window: int = WINDOW,
    timeout: float = 120.0,
    runner: Callable[[ExecTarget, float], ExecResult] = run,
) -> list[ExecResult]:
    """Every target's command, at most `window` at once; results in the targets' order."""
    if not targets:
        return []
    with ThreadPoolExecutor(max_workers=max(1, min(window, len(targets)))) as pool:
        return list(pool.map(lambda t: runner(t, timeout), targets))
