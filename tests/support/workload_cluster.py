"""A GKE cluster's Kubernetes API, in memory, as `xcli workload ...` sees it.

The JobSets are what `workload create` renders (workload/jobset/manifest.py), with the status
the JobSet controller writes; the Kueue Workloads and JobSets are validated against the real
CRDs. Pods and events are core/v1 objects shaped as the API server returns them. The CLI
reaches this fake through the provider registry's ClusterAccess (`DEFAULT.with_cluster_access`),
with a fake clock whose sleep only advances it (`Dependencies(timing=...)`). `live` is the same
connection and clock for tests that call the workload package directly.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

import pytest

from tests.plan.test_incluster import CASES as CLUSTERS
from tests.support.cluster_access import InMemoryAccess
from tests.support.crd import validate
from tests.support.fakekube import FakeKube
from tests.workload.cases import meta_for, spec_for
from xcli.cli.deps import Dependencies
from xcli.cli.errors import run_guarded
from xcli.cli.main import cli
from xcli.gateways.backoff import Timing
from xcli.plan.cluster import ClusterRef
from xcli.plan.gke import incluster
from xcli.providers import DEFAULT
from xcli.workload.jobset import live as workload_live
from xcli.workload.jobset.manifest import build_jobset

NOW = datetime(2026, 11, 22, 12, 0, tzinfo=timezone.utc)
NS = "/api/v1/namespaces/default"
JOBSETS = "/apis/jobset.x-k8s.io/v1alpha2/namespaces/default/jobsets"
WORKLOADS = "/apis/kueue.x-k8s.io/v1beta2/namespaces/default/workloads"
CONFIGMAP = f"{NS}/configmaps/xcli-cluster-metadata"
WHERE = ["--cluster", "demo", "--project", "my-proj", "--zone", "us-east5-b"]


@dataclass
class FakeClock:
    now: float = 1000.0
    sleeps: list[float] = field(default_factory=list)

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float, *_cancelled: object) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


@dataclass
class Cluster:
    fake: FakeKube
    clock: FakeClock
    refs: list[ClusterRef]
    live: workload_live.Live
    access: InMemoryAccess | None = None  # None: one over `fake`, recording into `refs`

    def run(self, args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
        access = self.access or InMemoryAccess(self.fake, self.refs)
        deps = Dependencies(
            providers=DEFAULT.with_cluster_access("gke", access),
            # the live's clocks: a test's sleep may also step its controllers
            timing=Timing(sleep=self.live.sleep, clock=self.live.clock, now=self.live.now),
        )
        code = run_guarded(cli, args, debug=False, obj=deps)
        out, err = capsys.readouterr()
        return code, out, err

    def writes(self) -> list[tuple[str, str]]:
        return [(r.method, r.url.path) for r in self.fake.requests if r.method != "GET"]


@pytest.fixture
def cluster() -> Iterator[Cluster]:
    fake, clock = FakeKube(), FakeClock()
    access = InMemoryAccess(fake)  # records the clusters it is asked for in access.refs
    live = workload_live.Live(access.kube_api, lambda: NOW, clock.monotonic, clock.sleep)
    yield Cluster(fake, clock, access.refs, live, access)


def set_up(fake: FakeKube, case: str = "v6e-256 x2 spot") -> dict[str, Any]:
    """The metadata ConfigMap `cluster create` writes, and the ClusterQueue's status."""
    config = incluster.metadata_configmap(CLUSTERS[case])
    fake.put(CONFIGMAP, config)
    queue = {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "ClusterQueue",
        "metadata": {"name": "xcli-cluster-queue"},
        "spec": {
            "resourceGroups": [
                {
                    "coveredResources": ["google.com/tpu"],
                    "flavors": [
                        {
                            "name": "2xv6e-256",
                            "resources": [{"name": "google.com/tpu", "nominalQuota": 512}],
                        }
                    ],
                }
            ]
        },
        "status": {
            "pendingWorkloads": 1,
            "admittedWorkloads": 1,
            "flavorsUsage": [
                {"name": "2xv6e-256", "resources": [{"name": "google.com/tpu", "total": 512}]}
            ],
        },
    }
    validate(queue)
    fake.put("/apis/kueue.x-k8s.io/v1beta2/clusterqueues/xcli-cluster-queue", queue)
    return config


def cond(kind: str, status: str, reason: str, message: str, at: str) -> dict[str, str]:
    return {
        "type": kind,
        "status": status,
        "reason": reason,
        "message": message,
        "lastTransitionTime": at,
    }


def add_jobset(
    fake: FakeKube,
    case: str,
    name: str,
    conditions: list[dict[str, str]],
    *,
    created: str = "2026-11-22T10:00:00Z",
    restarts: int = 0,
    managed: bool = True,
) -> dict[str, Any]:
    js = build_jobset(spec_for(case, name=name), meta_for(case))
    js["metadata"].update(creationTimestamp=created, uid=f"uid-{name}")
    if not managed:
        del js["metadata"]["labels"]["app.kubernetes.io/managed-by"]
    js["status"] = {"conditions": conditions, "restarts": restarts}
    validate(js)
    fake.put(f"{JOBSETS}/{name}", js)
    return js


def add_kueue(
    fake: FakeKube,
    owner: str,
    conditions: list[dict[str, str]],
    checks: list[dict[str, str]] = (),  # type: ignore[assignment]
    admission: dict[str, Any] | None = None,
) -> dict[str, Any]:
    name = f"jobset-{owner}-3c9a1"
    status: dict[str, Any] = {"conditions": conditions, "admissionChecks": list(checks)}
    if admission:
        status["admission"] = admission
    wl = {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "Workload",
        "metadata": {
            "name": name,
            "namespace": "default",
            "ownerReferences": [
                {
                    "apiVersion": "jobset.x-k8s.io/v1alpha2",
                    "kind": "JobSet",
                    "name": owner,
                    "uid": f"uid-{owner}",
                }
            ],
        },
        "spec": {
            "queueName": "xcli-queue",
            "podSets": [
                {
                    "name": "slice",
                    "count": 64,
                    "template": {"spec": {"containers": [{"name": "main", "image": "img"}]}},
                }
            ],
        },
        "status": status,
    }
    validate(wl)
    fake.put(f"{WORKLOADS}/{name}", wl)
    return wl


def add_pod(
    fake: FakeKube,
    jobset: str,
    slice_: int,
    index: int,
    phase: str,
    *,
    code: int | None = None,
    at: str = "",
    attempt: int = 0,
    log: str | None = None,
) -> str:
    name = f"{jobset}-slice-{slice_}-{index}-abcde"
    status: dict[str, Any] = {"phase": phase}
    if code is not None:
        reason = "Error" if code else "Completed"
        term = {"exitCode": code, "reason": reason, "finishedAt": at}
        status["containerStatuses"] = [{"name": "main", "state": {"terminated": term}}]
    labels = {
        "jobset.sigs.k8s.io/jobset-name": jobset,
        "jobset.sigs.k8s.io/job-index": str(slice_),
        "jobset.sigs.k8s.io/restart-attempt": str(attempt),
        "batch.kubernetes.io/job-completion-index": str(index),
    }
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default", "labels": labels},
        "spec": {"nodeName": None if phase == "Pending" else f"gke-tpu-{slice_}-{index}"},
        "status": status,
    }
    fake.put(f"{NS}/pods/{name}", pod)
    if log is not None:
        fake.logs[name] = log
    return name


def add_event(fake: FakeKube, pod: str, message: str, at: str) -> None:
    event = {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": f"{pod}.18a", "namespace": "default"},
        "involvedObject": {"kind": "Pod", "name": pod, "namespace": "default"},
        "reason": "FailedScheduling",
        "type": "Warning",
        "message": message,
        "lastTimestamp": at,
    }
    fake.put(f"{NS}/events/{pod}.18a", event)
