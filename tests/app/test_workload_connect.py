"""`workload connect` (app/workload_connect.py) against the in-memory Kubernetes API for the
reads, and a local WebSocket server speaking the kubelet's port-forward framing (the one of
tests/gateways/kube/test_kube_portforward.py, relaying to a TCP echo server) for the forward."""

from __future__ import annotations

import os
import signal
import socket
import threading
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pytest

from tests.app.test_ssh_use_case import Where, World
from tests.gateways.kube.test_kube_portforward import FakeApiServer, servers
from tests.support.workload_cluster import JOBSETS, NS, Cluster, add_jobset, cluster
from tests.support.workload_cluster import WHERE as WHERE_FLAGS
from xcli.app import workload_connect as use
from xcli.app.deps import Deps
from xcli.app.workload import Target
from xcli.errors import NotFoundError, UserError
from xcli.gateways.backoff import Timing
from xcli.gateways.kube.api import KubeApi
from xcli.gateways.kube.portforward import Target as Stream
from xcli.plan.cluster import ClusterRef
from xcli.providers import DEFAULT

__all__ = ["cluster", "servers"]  # the fixtures

WHERE = Where(project="my-proj", zone="us-east5-b")


@dataclass
class Access:
    """The cluster's reads from the in-memory API; its endpoint is the WebSocket server."""

    cl: Cluster
    server: str
    refs: list[ClusterRef] = field(default_factory=list)

    def kube_api(self, ref: ClusterRef) -> KubeApi:
        self.refs.append(ref)
        return KubeApi(self.server, None, lambda: "tok", transport=self.cl.fake.transport())


def _deps(cl: Cluster, server: str) -> Deps:
    live = cl.live
    return replace(
        World().deps(Path("logs")),
        registry=DEFAULT.with_cluster_access("gke", Access(cl, server)),
        timing=Timing(sleep=live.sleep, clock=live.clock, now=live.now),
    )


def _pathways(cl: Cluster, phase: str | None = "Running") -> None:
    labels = {"xcli/kind": "pathways", "xcli/workload": "nb-1"}
    jobset = {
        "apiVersion": "jobset.x-k8s.io/v1alpha2",
        "kind": "JobSet",
        "metadata": {"name": "nb-1", "namespace": "default", "labels": labels},
        "spec": {"replicatedJobs": []},
    }
    cl.fake.put(f"{JOBSETS}/nb-1", jobset)
    if phase is None:
        return
    name = "nb-1-pathways-head-0-0-abcde"
    pod: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": "default",
            "labels": {
                "jobset.sigs.k8s.io/jobset-name": "nb-1",
                "jobset.sigs.k8s.io/replicatedjob-name": "pathways-head",
            },
        },
        "status": {"phase": phase},
    }
    cl.fake.put(f"{NS}/pods/{name}", pod)


def _request(name: str = "nb-1") -> use.ConnectRequest:
    return use.ConnectRequest(Target("demo", "gke", WHERE), name, 0, 60.0)


def test_connect_forwards_to_the_head_pod_until_stopped(
    cluster: Cluster, servers: tuple[Stream, FakeApiServer, Stream]
) -> None:
    stream, fake, _ = servers
    _pathways(cluster)
    said: list[str] = []
    stop = threading.Event()
    ready = threading.Event()

    def on_ready(backend: str) -> None:
        said.append(backend)
        ready.set()

    errors: list[BaseException] = []

    def run() -> None:
        try:
            use.connect(_request(), _deps(cluster, stream.server), on_ready, stop)
        except BaseException as exc:  # reported to the test below
            errors.append(exc)
            ready.set()

    thread = threading.Thread(target=run)
    thread.start()
    assert ready.wait(10) and not errors, errors
    (backend,) = said
    assert backend.startswith("grpc://127.0.0.1:")
    port = int(backend.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port), timeout=5) as client:
        client.sendall(b"jax says hi")
        assert client.recv(100) == b"jax says hi"
        stop.set()  # Ctrl-C
        thread.join(timeout=5)
        assert not thread.is_alive()
    paths = {r.target for r in fake.requests}
    assert paths == {
        "/api/v1/namespaces/default/pods/nb-1-pathways-head-0-0-abcde/portforward?ports=29000"
    }


def _refusal(cl: Cluster, name: str) -> str:
    with pytest.raises((UserError, NotFoundError)) as caught:
        use.connect(_request(name), _deps(cl, "http://127.0.0.1:9"), print, threading.Event())
    assert caught.value.hint
    return caught.value.message


def test_bad_inputs_are_refused_with_a_hint(cluster: Cluster) -> None:
    assert "no workload nb-1 on cluster demo" in _refusal(cluster, "nb-1")
    add_jobset(cluster.fake, "v6e-256-x2", "train-1", [])
    assert "not a Pathways workload" in _refusal(cluster, "train-1")
    _pathways(cluster, phase=None)
    assert "has no head pod yet" in _refusal(cluster, "nb-1")
    _pathways(cluster, phase="Pending")
    assert "is not running (it is Pending)" in _refusal(cluster, "nb-1")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def test_the_command_forwards_until_ctrl_c_then_exits_130(
    cluster: Cluster,
    servers: tuple[Stream, FakeApiServer, Stream],
    capsys: pytest.CaptureFixture[str],
) -> None:
    stream, _, _ = servers
    _pathways(cluster)
    cluster.access = Access(cluster, stream.server)  # type: ignore[assignment]
    port, echoed = _free_port(), []

    def user() -> None:  # a notebook using the forward, then Ctrl-C
        for _ in range(100):
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=5) as client:
                    client.sendall(b"ping")
                    echoed.append(client.recv(10))
                    break
            except OSError:
                threading.Event().wait(0.1)
        os.kill(os.getpid(), signal.SIGINT)

    threading.Thread(target=user, daemon=True).start()
    args = ["workload", "connect", "nb-1", *WHERE_FLAGS, "--local-port", str(port)]
    code, out, err = cluster.run(args, capsys)
    assert code == 130, err
    assert echoed == [b"ping"]
    assert f"JAX_PLATFORMS=proxy JAX_BACKEND_TARGET=grpc://127.0.0.1:{port}" in out
    with pytest.raises(OSError):  # the forward is closed
        socket.create_connection(("127.0.0.1", port), timeout=1)


def test_the_dry_run_prints_what_it_would_open(
    cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = cluster.run(["workload", "connect", "nb-1", *WHERE_FLAGS, "--dry-run"], capsys)
    assert code == 0, err
    assert "pods/nb-1-pathways-head-0-0-*/portforward?ports=29000" in out
    assert "JAX_BACKEND_TARGET=grpc://127.0.0.1:29000" in out
    assert cluster.fake.requests == []


def test_the_command_refuses_a_missing_workload_in_one_line(
    cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = cluster.run(["workload", "connect", "nb-9", *WHERE_FLAGS], capsys)
    assert code == 1
    lines = err.strip().splitlines()
    assert lines[0].startswith("error: no workload nb-9 on cluster demo")
    assert lines[1].startswith("hint: ")
