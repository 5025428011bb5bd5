"""The JobSet pod of each GPUDirect family against Google's published pod spec, field by field.

The expected values are transcribed from the published manifests (container-engine-accelerators
commit 992db81257553607f1477945f1b3219632991829, https://github.com/GoogleCloudPlatform/
container-engine-accelerators): gpudirect-tcpx/nccl-test-latest.yaml and nccl-config.yaml,
gpudirect-tcpxo/nccl-test-latest.yaml and README.md (Jan 9 2026), gpudirect-rdma/nccl-test.yaml,
nccl-test-a4.yaml and nccl-test-imex-a4x.yaml. Where xcli differs on purpose, the test says so.
The pods validate against lightkube-models (core/v1 Pod), the JobSets against the JobSet CRD.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
import yaml

from tests.support.core import validate_core
from tests.support.crd import validate
from tests.workload.cases import meta_for, spec_for
from xcli.plan.gke.gpu_networks import NETWORK_NAMES, network_names
from xcli.plan.model import Ref
from xcli.plan.steps import K8sApply
from xcli.workload.jobset.manifest import build_jobset
from xcli.workload.jobset.plan import plan_workload_create

FAMILIES = ("h100-80gb-8-x2", "h100-mega-80gb-8-x4", "h200-141gb-8-x2", "b200-8-x2", "gb200-4-x18")
GPUS8 = [f"/dev/nvidia{i}" for i in range(8)] + ["/dev/nvidiactl", "/dev/nvidia-uvm"]

# nccl-config.yaml, run-nccl.sh: every `-x NAME=value` but LD_LIBRARY_PATH
TCPX_NCCL = {
    "NCCL_SOCKET_IFNAME": "eth0",
    "NCCL_ALGO": "Ring,Tree",
    "NCCL_PROTO": "Simple",
    "NCCL_CROSS_NIC": "0",
    "NCCL_NET_GDR_LEVEL": "PIX",
    "NCCL_P2P_PXN_LEVEL": "0",
    "NCCL_GPUDIRECTTCPX_SOCKET_IFNAME": "eth1,eth2,eth3,eth4",
    "NCCL_GPUDIRECTTCPX_CTRL_DEV": "eth0",
    "NCCL_DYNAMIC_CHUNK_SIZE": "524288",
    "NCCL_P2P_NET_CHUNKSIZE": "524288",
    "NCCL_P2P_PCI_CHUNKSIZE": "524288",
    "NCCL_P2P_NVL_CHUNKSIZE": "1048576",
    "NCCL_BUFFSIZE": "4194304",
    "NCCL_NSOCKS_PERTHREAD": "4",
    "NCCL_SOCKET_NTHREADS": "1",
    "NCCL_GPUDIRECTTCPX_TX_BINDINGS": (
        "eth1:8-21,112-125;eth2:8-21,112-125;eth3:60-73,164-177;eth4:60-73,164-177"
    ),
    "NCCL_GPUDIRECTTCPX_RX_BINDINGS": (
        "eth1:22-35,126-139;eth2:22-35,126-139;eth3:74-87,178-191;eth4:74-87,178-191"
    ),
    "NCCL_GPUDIRECTTCPX_PROGRAM_FLOW_STEERING_WAIT_MICROS": "500000",
}
# README.md, "NCCL configs" of the Jan 9 2026 release; its /usr/local/tcpxo/lib64 is "the NCCL
# lib directory installed inside the workload container", here /usr/local/nvidia/lib64
TCPXO_NCCL = {
    "NCCL_FASTRAK_CTRL_DEV": "eth0",
    "NCCL_FASTRAK_IFNAME": "eth1,eth2,eth3,eth4,eth5,eth6,eth7,eth8",
    "NCCL_SOCKET_IFNAME": "eth0",
    "NCCL_CROSS_NIC": "0",
    "NCCL_PROTO": "Simple,LL128",
    "NCCL_MIN_NCHANNELS": "4",
    "NCCL_TUNER_PLUGIN": "libnccl-tuner.so",
    "NCCL_TUNER_CONFIG_PATH": "/usr/local/nvidia/lib64/a3plus_tuner_config.textproto",
    "NCCL_SHIMNET_GUEST_CONFIG_CHECKER_CONFIG_FILE": (
        "/usr/local/nvidia/lib64/a3plus_guest_config.textproto"
    ),
    "CUDA_VISIBLE_DEVICES": "0,1,2,3,4,5,6,7",
    "NCCL_NVLSTREE_MAX_CHUNKSIZE": "131072",
    "NCCL_P2P_NET_CHUNKSIZE": "524288",
    "NCCL_P2P_PCI_CHUNKSIZE": "524288",
    "NCCL_P2P_NVL_CHUNKSIZE": "1048576",
    "NCCL_FASTRAK_NUM_FLOWS": "2",
    "NCCL_FASTRAK_USE_SNAP": "1",
    "NCCL_FASTRAK_PLUGIN_ACCEPT_TIMEOUT_MS": "600000",
    "NCCL_FASTRAK_ENABLE_CONTROL_CHANNEL": "0",
    "NCCL_BUFFSIZE": "8388608",
    "NCCL_NET_GDR_LEVEL": "PIX",
    "NCCL_FASTRAK_ENABLE_HOTPATH_LOGGING": "0",
    "NCCL_FASTRAK_USE_LLCM": "1",
    "NCCL_NVLS_ENABLE": "1",
    "NCCL_DEBUG": "WARN",
    "NCCL_DEBUG_SUBSYS": "INIT,NET,ENV,COLL,GRAPH",
}


def _template(case: str, **overrides: Any) -> dict[str, Any]:
    js = build_jobset(spec_for(case, **overrides), meta_for(case))
    return js["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]  # type: ignore[no-any-return]


def _interfaces(template: dict[str, Any]) -> list[dict[str, str]]:
    return json.loads(template["metadata"]["annotations"]["networking.gke.io/interfaces"])  # type: ignore[no-any-return]


def _mounts(pod: dict[str, Any], container: dict[str, Any]) -> dict[str, Any]:
    """mountPath -> what is mounted there (a hostPath's path, or the emptyDir)."""
    volumes = {v["name"]: v for v in pod["volumes"]}
    found = {}
    for mount in container.get("volumeMounts", []):
        volume = volumes[mount["name"]]
        found[mount["mountPath"]] = volume["hostPath"]["path"] if "hostPath" in volume else volume
    return found


def _env(container: dict[str, Any]) -> dict[str, Any]:
    return {e["name"]: e.get("value", e.get("valueFrom")) for e in container["env"]}


def _eth(pairs: list[tuple[int, str]]) -> list[dict[str, str]]:
    head = [{"interfaceName": "eth0", "network": "default"}]
    return head + [{"interfaceName": f"eth{i}", "network": n} for i, n in pairs]


@pytest.mark.parametrize("case", FAMILIES)
def test_pod_and_jobset_validate(case: str) -> None:
    js = build_jobset(spec_for(case), meta_for(case))
    validate(js)
    template = _template(case)
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", **template["metadata"]}}
    validate_core({**pod, "spec": template["spec"]})


def test_validation_would_catch_a_bad_sidecar() -> None:
    template = _template("h100-mega-80gb-8-x4")
    template["spec"]["initContainers"][0]["restartPolicyy"] = "Always"
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": template["spec"]}
    with pytest.raises(AssertionError, match="restartPolicyy"):
        validate_core(pod)


@pytest.mark.parametrize("case", FAMILIES)
def test_pod_networking_not_host_networking(case: str) -> None:
    template = _template(case)
    spec = template["spec"]
    # every published example: the extra NICs exist only in the pod's network namespace
    assert spec["hostNetwork"] is False and "dnsPolicy" not in spec
    assert template["metadata"]["annotations"]["networking.gke.io/default-interface"] == "eth0"
    shm = {v["name"]: v for v in spec["volumes"]}["shared-memory"]
    assert shm["emptyDir"]["medium"] == "Memory"
    assert _mounts(spec, spec["containers"][0])["/dev/shm"] is shm


def test_a3_high_tcpx() -> None:
    template = _template("h100-80gb-8-x2")
    notes = template["metadata"]["annotations"]
    assert _interfaces(template) == _eth([(i, f"vpc{i}") for i in range(1, 5)])
    devices = yaml.safe_load(notes["devices.gke.io/container.tcpx-daemon"])
    assert devices == [{"path": p} for p in GPUS8]
    spec = template["spec"]
    (daemon,) = spec["initContainers"]
    assert daemon["name"] == "tcpx-daemon" and daemon["restartPolicy"] == "Always"
    assert (
        daemon["image"] == "us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpx/tcpgpudmarxd-dev:v2.0.12"
    )
    assert daemon["imagePullPolicy"] == "Always"
    # the manifest writes the last argument as \"--verbose 128 2 0 \" in a plain YAML scalar,
    # which keeps the backslashes and quotes: xcli sends that argv byte for byte
    assert daemon["command"] == [
        "/tcpgpudmarxd/build/app/tcpgpudmarxd",
        "--gpu_nic_preset",
        "a3vm",
        "--gpu_shmem_type",
        "fd",
        "--uds_path",
        "/run/tcpx",
        "--setup_param",
        '\\"--verbose 128 2 0 \\"',
    ]
    assert daemon["securityContext"] == {"capabilities": {"add": ["NET_ADMIN"]}}
    assert _env(daemon) == {"LD_LIBRARY_PATH": "/usr/local/nvidia/lib64"}
    assert _mounts(spec, daemon) == {
        "/usr/local/nvidia/lib64": "/home/kubernetes/bin/nvidia/lib64",
        "/run/tcpx": "/run/tcpx",
        "/hostsysfs": "/sys",
        "/hostprocsysfs": "/proc/sys",
    }
    main = spec["containers"][0]
    assert main["securityContext"] == {"capabilities": {"add": ["IPC_LOCK"]}}
    mounts = _mounts(spec, main)
    assert mounts["/tmp"] == "/run/tcpx"
    assert mounts["/usr/local/nvidia/lib64"] == "/home/kubernetes/bin/nvidia/lib64"
    assert {v["name"]: v for v in spec["volumes"]}["shared-memory"]["emptyDir"][
        "sizeLimit"
    ] == "128Gi"
    env = _env(main)
    assert env["LD_LIBRARY_PATH"] == "/usr/local/nvidia/lib64"
    assert {k: env[k] for k in TCPX_NCCL} == TCPX_NCCL


def test_a3_mega_tcpxo() -> None:
    template = _template("h100-mega-80gb-8-x4")
    notes = template["metadata"]["annotations"]
    assert _interfaces(template) == _eth([(i, f"vpc{i}") for i in range(1, 9)])
    devices = yaml.safe_load(notes["devices.gke.io/container.tcpxo-daemon"])
    assert devices == [{"path": p} for p in [*GPUS8, "/dev/dmabuf_import_helper"]]
    spec = template["spec"]
    (daemon,) = spec["initContainers"]
    assert daemon["name"] == "tcpxo-daemon" and daemon["restartPolicy"] == "Always"
    assert daemon["image"] == (
        "us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpxo/tcpgpudmarxd-dev:v1.0.21"
    )
    assert daemon["command"] == ["/bin/sh", "-c"]
    assert daemon["args"] == [
        "set -ex\nchmod 755 /fts/entrypoint_rxdm_container.sh\n"
        "/fts/entrypoint_rxdm_container.sh --num_hops=2\n"
    ]
    assert daemon["securityContext"] == {"capabilities": {"add": ["NET_ADMIN", "NET_BIND_SERVICE"]}}
    assert _env(daemon) == {"LD_LIBRARY_PATH": "/usr/local/nvidia/lib64"}
    assert _mounts(spec, daemon) == {
        "/usr/local/nvidia/lib64": "/home/kubernetes/bin/nvidia/lib64",
        "/hostsysfs": "/sys",
        "/hostprocsysfs": "/proc/sys",
    }
    main = spec["containers"][0]
    mounts = _mounts(spec, main)
    assert mounts["/usr/local/nvidia/lib64"] == "/home/kubernetes/bin/nvidia/lib64"
    assert mounts["/dev/aperture_devices"] == "/dev/aperture_devices"
    # 1Gi in the test pod; 250Gi as Google's A3 Mega training JobSet (gpu-recipes)
    assert {v["name"]: v for v in spec["volumes"]}["shared-memory"]["emptyDir"][
        "sizeLimit"
    ] == "250Gi"
    env = _env(main)
    assert env["LD_LIBRARY_PATH"] == "/usr/local/nvidia/lib64"
    assert env["NCCL_FASTRAK_LLCM_DEVICE_DIRECTORY"] == "/dev/aperture_devices"
    assert {k: env[k] for k in TCPXO_NCCL} == TCPXO_NCCL
    assert "securityContext" not in main  # the published pod adds no capability


@pytest.mark.parametrize(
    ("case", "nics"), [("h200-141gb-8-x2", 8), ("b200-8-x2", 8), ("gb200-4-x18", 4)]
)
def test_rdma(case: str, nics: int) -> None:
    template = _template(case)
    # eth2.. -> rdma-0..: the published pods; eth1 -> gvnic-1 as Google's gpu-recipes JobSets
    assert _interfaces(template) == _eth(
        [(1, "gvnic-1"), *((2 + i, f"rdma-{i}") for i in range(nics))]
    )
    assert set(template["metadata"]["annotations"]) == {
        "networking.gke.io/default-interface",
        "networking.gke.io/interfaces",
    }  # no NRI devices
    spec = template["spec"]
    assert "initContainers" not in spec  # no daemon
    main = spec["containers"][0]
    mounts = _mounts(spec, main)
    assert mounts["/usr/local/nvidia"] == "/home/kubernetes/bin/nvidia"
    assert mounts["/usr/local/gib"] == "/home/kubernetes/bin/gib"
    assert {v["name"]: v for v in spec["volumes"]}["shared-memory"]["emptyDir"] == {
        "medium": "Memory",
        "sizeLimit": "250Gi",
    }
    env = _env(main)
    assert env["LD_LIBRARY_PATH"] == "/usr/local/nvidia/lib64"
    assert env["NCCL_NET"] == "gIB"
    assert env["NCCL_PLUGIN_PATH"] == "/usr/local/gib/lib64"
    assert env["NCCL_INIT_SCRIPT"] == "/usr/local/gib/scripts/set_nccl_env.sh"
    # the plugin's settings are sourced before the user's command, as every published pod does
    shell = main["command"][-1]
    assert shell.startswith('if [ -r "$NCCL_INIT_SCRIPT" ]; then . "$NCCL_INIT_SCRIPT"; fi\n')
    assert shell.endswith("python3 train.py --steps 100")
    assert main["resources"]["limits"] == {"nvidia.com/gpu": str(nics)}


def test_a4x_compute_domain() -> None:
    template = _template("gb200-4-x18")
    spec = template["spec"]
    claim = "train-1-compute-domain-channel"
    assert spec["resourceClaims"] == [
        {"name": "compute-domain-channel", "resourceClaimTemplateName": claim}
    ]
    assert spec["containers"][0]["resources"]["claims"] == [{"name": "compute-domain-channel"}]
    assert spec["nodeSelector"]["kubernetes.io/arch"] == "arm64"
    assert spec["nodeSelector"]["cloud.google.com/gke-accelerator"] == "nvidia-gb200"
    plan = plan_workload_create(spec_for("gb200-4-x18"), meta_for("gb200-4-x18"), [])
    jobset, domain = plan.steps
    assert isinstance(domain, K8sApply) and domain.after == (jobset.id,)
    manifest = domain.manifest
    assert (
        manifest["kind"] == "ComputeDomain"
        and manifest["apiVersion"] == "resource.nvidia.com/v1beta1"
    )
    assert manifest["spec"] == {
        "numNodes": 18,
        "channel": {"resourceClaimTemplate": {"name": claim}},
    }
    (owner,) = manifest["metadata"]["ownerReferences"]
    assert owner["kind"] == "JobSet" and owner["name"] == "train-1"
    assert owner["uid"] == Ref("jobset", "uid")  # deleted with the JobSet


def test_user_env_wins_over_the_family_env() -> None:
    spec = _template("h100-mega-80gb-8-x4", env=(("NCCL_DEBUG", "INFO"), ("X", "1")))["spec"]
    env = spec["containers"][0]["env"]
    names = [e["name"] for e in env]
    assert names.count("NCCL_DEBUG") == 1 and names[-2:] == ["NCCL_DEBUG", "X"]
    assert _env(spec["containers"][0])["NCCL_DEBUG"] == "INFO"


@pytest.mark.parametrize("case", ["v6e-256-x2", "tpu7x-8"])
def test_tpus_get_dev_shm_only(case: str) -> None:
    template = _template(case)
    spec = template["spec"]
    assert spec["hostNetwork"] is True and "annotations" not in template["metadata"]
    assert spec["volumes"] == [{"name": "shared-memory", "emptyDir": {"medium": "Memory"}}]
    assert spec["containers"][0]["volumeMounts"] == [
        {"name": "shared-memory", "mountPath": "/dev/shm"}
    ]


def test_network_names_for_the_cluster_side() -> None:
    assert NETWORK_NAMES["tcpx"] == ("vpc1", "vpc2", "vpc3", "vpc4")
    assert len(NETWORK_NAMES["tcpxo"]) == 8
    gb200 = meta_for("gb200-4-x18").accelerator
    assert network_names(gb200) == ("gvnic-1", "rdma-0", "rdma-1", "rdma-2", "rdma-3")
    assert network_names(meta_for("v6e-256-x2").accelerator) == ()
