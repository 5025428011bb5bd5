"""The JobSet for each hardware shape: valid against the v0.12.0 CRD, and right in substance."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.crd import validate
from tests.workload.cases import CASES, meta_for, spec_for
from xcli.catalog import Accelerator
from xcli.workload.jobset.manifest import RETRYABLE_EXIT_CODES, build_jobset


def _jobset(case: str, **overrides: Any) -> dict[str, Any]:
    return build_jobset(spec_for(case, **overrides), meta_for(case))


def js_accelerator(case: str) -> Accelerator:
    return meta_for(case).accelerator


def _rjob(js: dict[str, Any]) -> dict[str, Any]:
    (rjob,) = js["spec"]["replicatedJobs"]
    return rjob  # type: ignore[no-any-return]


def _pod(js: dict[str, Any]) -> dict[str, Any]:
    return _rjob(js)["template"]["spec"]["template"]["spec"]  # type: ignore[no-any-return]


def _env(js: dict[str, Any]) -> dict[str, Any]:
    return {e["name"]: e.get("value", e.get("valueFrom")) for e in _pod(js)["containers"][0]["env"]}


@pytest.mark.parametrize("case", sorted(CASES))
def test_every_jobset_is_valid_against_the_crd(case: str) -> None:
    validate(_jobset(case))


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_validator_would_catch_a_broken_jobset(case: str) -> None:
    js = _jobset(case)
    _pod(js)["containers"][0]["resourcez"] = {}
    with pytest.raises(AssertionError, match="resourcez"):
        validate(js)


@pytest.mark.parametrize(
    ("case", "replicas", "pods", "chips", "topology"),
    [
        ("v6e-256-x2", 2, 64, "4", "16x16"),
        ("v5litepod-16-x1", 1, 4, "4", "4x4"),
        ("v5p-128-x4-spot", 4, 16, "4", "4x4x4"),
        ("tpu7x-8", 1, 1, "4", "2x2x1"),
    ],
)
def test_tpu_shape(case: str, replicas: int, pods: int, chips: str, topology: str) -> None:
    js = _jobset(case)
    rjob = _rjob(js)
    job = rjob["template"]["spec"]
    pod = _pod(js)
    assert rjob["name"] == "slice" and rjob["replicas"] == replicas
    assert job["parallelism"] == job["completions"] == pods
    assert job["completionMode"] == "Indexed" and job["backoffLimit"] == 0
    assert pod["restartPolicy"] == "Never"
    resources = pod["containers"][0]["resources"]
    assert resources["requests"] == resources["limits"] == {"google.com/tpu": chips}
    assert pod["nodeSelector"]["cloud.google.com/gke-tpu-topology"] == topology
    assert js["metadata"]["annotations"] == {
        "alpha.jobset.sigs.k8s.io/exclusive-topology": "cloud.google.com/gke-nodepool"
    }
    assert {"key": "google.com/tpu", "operator": "Exists"} in pod["tolerations"]
    ports = {p["containerPort"] for p in pod["containers"][0]["ports"]}
    assert {8471, 8080, 8431} <= ports
    assert pod["containers"][0]["securityContext"] == {"privileged": True}


def test_gpu_shape() -> None:
    js = _jobset("h100-80gb-8-x2")
    rjob = _rjob(js)
    pod = _pod(js)
    assert rjob["name"] == "workers" and rjob["replicas"] == 1
    assert rjob["template"]["spec"]["parallelism"] == rjob["template"]["spec"]["completions"] == 2
    assert pod["containers"][0]["resources"]["limits"] == {"nvidia.com/gpu": "8"}
    assert pod["nodeSelector"]["cloud.google.com/gke-accelerator"] == "nvidia-h100-80gb"
    assert "annotations" not in js["metadata"]  # no exclusive topology for GPU node pools
    assert {"key": "nvidia.com/gpu", "operator": "Exists"} in pod["tolerations"]
    # not privileged: GPUDirect-TCPX asks only for IPC_LOCK (gpu_network.py)
    assert pod["containers"][0]["securityContext"] == {"capabilities": {"add": ["IPC_LOCK"]}}


@pytest.mark.parametrize(
    ("case", "expected"),
    [
        ("v6e-256-x2", {}),
        ("v5p-128-x4-spot", {"cloud.google.com/gke-spot": "true"}),
        ("tpu7x-8", {}),  # reservation: no selector GKE is not shown to satisfy
        ("h100-80gb-8-x2", {"cloud.google.com/gke-flex-start": "true"}),
    ],
)
def test_capacity_selectors(case: str, expected: dict[str, str]) -> None:
    selector = _pod(_jobset(case))["nodeSelector"]
    capacity_keys = {k: v for k, v in selector.items() if "accelerator" not in k}
    capacity_keys.pop("cloud.google.com/gke-tpu-topology", None)
    assert capacity_keys == expected


def test_spot_pods_tolerate_the_spot_taint() -> None:
    tolerations = _pod(_jobset("v5p-128-x4-spot"))["tolerations"]
    assert {
        "key": "cloud.google.com/gke-spot",
        "operator": "Equal",
        "value": "true",
        "effect": "NoSchedule",
    } in tolerations
    assert len(_pod(_jobset("v6e-256-x2"))["tolerations"]) == 1


def test_flex_start_pods_tolerate_the_queued_taint() -> None:
    tolerations = _pod(_jobset("h100-80gb-8-x2"))["tolerations"]
    assert {
        "key": "cloud.google.com/gke-queued",
        "operator": "Exists",
        "effect": "NoSchedule",
    } in tolerations


def test_shared_reservation_path_selects_no_reservation_label() -> None:
    case = "tpu7x-8"
    meta = meta_for(case)
    from dataclasses import replace

    from xcli.spec import Capacity

    meta = replace(meta, capacity=Capacity("reservation", "projects/other-proj/reservations/big"))
    js = build_jobset(spec_for(case), meta)
    assert not any("reservation" in key for key in _pod(js)["nodeSelector"])
    validate(js)


@pytest.mark.parametrize("case", sorted(CASES))
def test_host_network_queue_and_priority(case: str) -> None:
    js = _jobset(case, priority="high")
    pod = _pod(js)
    if js_accelerator(case).gpu_network is None:
        assert pod["hostNetwork"] is True
        assert pod["dnsPolicy"] == "ClusterFirstWithHostNet"
    else:  # GPUDirect interfaces live in the pod's network namespace (test_gpu_network.py)
        assert pod["hostNetwork"] is False and "dnsPolicy" not in pod
    assert pod["priorityClassName"] == "high"
    assert js["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] == "xcli-queue"
    assert js["spec"]["network"]["enableDNSHostnames"] is True


def test_multislice_environment_comes_from_jobset_annotations() -> None:
    env = _env(_jobset("v6e-256-x2"))
    assert env["MEGASCALE_COORDINATOR_ADDRESS"] == "train-1-slice-0-0.train-1"
    assert env["MEGASCALE_PORT"] == "8080"
    assert env["MEGASCALE_NUM_SLICES"] == {
        "fieldRef": {
            "fieldPath": "metadata.annotations['jobset.sigs.k8s.io/replicatedjob-replicas']"
        }
    }
    assert env["MEGASCALE_SLICE_ID"] == {
        "fieldRef": {"fieldPath": "metadata.annotations['jobset.sigs.k8s.io/job-index']"}
    }
    # GKE's TPU webhook injects these for Indexed Jobs; setting them would fight it.
    assert "TPU_WORKER_ID" not in env and "TPU_WORKER_HOSTNAMES" not in env
    assert env["LIBTPU_INIT_ARGS"] == "--xla_tpu_enable_latency_hiding_scheduler=true"


def test_single_slice_sets_no_megascale_variables() -> None:
    env = _env(_jobset("v5litepod-16-x1"))
    assert not [name for name in env if name.startswith("MEGASCALE_")]


def test_gpu_environment() -> None:
    env = _env(_jobset("h100-80gb-8-x2"))
    assert env["JAX_COORDINATOR_ADDRESS"] == "train-1-workers-0-0.train-1:6002"
    assert env["MASTER_ADDR"] == "train-1-workers-0-0.train-1"
    assert env["NNODES"] == env["JAX_NUM_PROCESSES"] == "2"
    rank = {
        "fieldRef": {
            "fieldPath": "metadata.annotations['batch.kubernetes.io/job-completion-index']"
        }
    }
    assert env["NODE_RANK"] == env["JAX_PROCESS_ID"] == rank


def test_restart_policy_disruptions_free_crashes_counted_user_errors_fail() -> None:
    js = _jobset("v5p-128-x4-spot", restart_on_exit_codes=(3, 1))
    policy = js["spec"]["failurePolicy"]
    assert policy["maxRestarts"] == 3
    assert policy["rules"] == [
        {
            "name": "Disruption",
            "action": "RestartJobSetAndIgnoreMaxRestarts",
            "onJobFailureReasons": ["PodFailurePolicy"],
            "onJobFailureMessagePatterns": [
                "^Pod [^ /]+/[^ ]+ has condition DisruptionTarget matching FailJob rule at index 0$"
            ],
        },
        {
            "name": "FailOnUserError",
            "action": "FailJobSet",
            "onJobFailureReasons": ["PodFailurePolicy"],
        },
    ]
    rules = _rjob(js)["template"]["spec"]["podFailurePolicy"]["rules"]
    # Disruption (preemption, node loss) first, so it is infrastructure whatever the code; the
    # pattern above names its index.
    assert rules[0] == {
        "action": "FailJob",
        "onPodConditions": [{"type": "DisruptionTarget", "status": "True"}],
    }
    codes = rules[1]["onExitCodes"]
    assert rules[1]["action"] == "FailJob" and codes["operator"] == "NotIn"
    assert codes["containerName"] == _pod(js)["containers"][0]["name"]
    assert codes["values"] == sorted({1, 3, *RETRYABLE_EXIT_CODES})
    # Kubernetes: values ascending, unique, at most 255.
    assert codes["values"] == sorted(set(codes["values"])) and len(codes["values"]) <= 255
    assert 42 in codes["values"] and 143 in codes["values"] and 137 in codes["values"]
    assert 1 in codes["values"] and 2 not in codes["values"] and 127 not in codes["values"]


def test_the_free_restarts_are_bounded_inside_the_pod() -> None:
    js = _jobset("v5p-128-x4-spot", restart_on_exit_codes=(1,), max_disruptions=5)
    container = _pod(js)["containers"][0]
    shell, flag, script = container["command"]
    guard, _, command = script.partition("\n")
    # --max-restarts 3 + --max-disruptions 5; exit 2: the lowest code the exit-code rule fails
    assert (shell, flag) == ("/bin/sh", "-c") and command == spec_for("v5p-128-x4-spot").command
    assert guard.startswith('if [ "${XCLI_RESTART_ATTEMPT:-0}" -gt 8 ]; then') and "exit 2" in guard
    env = _env(js)
    assert env["XCLI_RESTART_ATTEMPT"] == {
        "fieldRef": {"fieldPath": "metadata.annotations['jobset.sigs.k8s.io/restart-attempt']"}
    }


def test_ttl_and_grace_period() -> None:
    js = _jobset("v6e-256-x2", ttl_after_finished=3600, termination_grace_period=120)
    assert js["spec"]["ttlSecondsAfterFinished"] == 3600
    assert _pod(js)["terminationGracePeriodSeconds"] == 120
