"""GPUDirect networking and a memory-backed /dev/shm in a workload's pod, per hardware family.

Pure data and dict building; manifest.py calls `pod_annotations` and `decorate_pod`. Each
family follows Google's published pod spec (container-engine-accelerators, commit 992db812,
https://github.com/GoogleCloudPlatform/container-engine-accelerators):

- tcpx (A3 High): gpudirect-tcpx/nccl-test-latest.yaml (annotations, the tcpx-daemon RxDM,
  volumes) and nccl-config.yaml (the NCCL environment of run-nccl.sh).
- tcpxo (A3 Mega): gpudirect-tcpxo/nccl-test-latest.yaml, README.md (the NCCL environment of
  the Jan 9 2026 release, with its library directory set to where the pod mounts the plugin)
  and best-practice.md (the daemon as a native sidecar).
- rdma (A3 Ultra, A4, A4X): gpudirect-rdma/nccl-test.yaml, nccl-test-a4.yaml and
  nccl-test-imex-a4x.yaml; the gVNIC interface, NCCL_PLUGIN_PATH and NCCL_INIT_SCRIPT as in
  Google's gpu-recipes JobSets (https://github.com/AI-Hypercomputer/gpu-recipes,
  src/helm-charts/a3ultra/jobset); NCCL_NET=gIB as Cluster Toolkit's NCCL JobSet
  (examples/gke-a3-ultragpu/nccl-jobset-example.yaml), so NCCL fails loudly rather than falling
  back to TCP sockets when the plugin is missing.

The RxDM daemons run as native sidecars (an init container with restartPolicy Always,
https://kubernetes.io/docs/concepts/workloads/pods/sidecar-containers/), as best-practice.md
recommends: the kubelet stops them once the main container exits, so the Job completes without
the shutdown handshake a plain second container needs. Native sidecars are on by default from
GKE 1.29 (best-practice.md); A3 High's TCPX also ran on 1.27 and 1.28, where they are not, but
Google's current examples pin 1.32 and later (Cluster Toolkit's gke-a3-* examples).
"""

from __future__ import annotations

import json
from typing import Any

from xcli.catalog import Accelerator
from xcli.plan.gke.dra import needs_compute_domain as needs_compute_domain  # one rule, re-exported
from xcli.plan.gke.gpu_networks import network_names

NVIDIA_LIB64 = "/usr/local/nvidia/lib64"
SHM_VOLUME = "shared-memory"

DEFAULT_INTERFACE = "networking.gke.io/default-interface"
INTERFACES = "networking.gke.io/interfaces"
DEVICES = "devices.gke.io/container.{}"  # the NRI device injector's per-container annotation

TCPX_DAEMON = "us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpx/tcpgpudmarxd-dev:v2.0.12"
TCPXO_DAEMON = "us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpxo/tcpgpudmarxd-dev:v1.0.21"

# /dev/shm size per stack: tcpx 128Gi (XPK's tcpx decorator; Google's TCPX test pod has none),
# tcpxo and rdma 250Gi (gpu-recipes' A3 Mega JobSet, the RDMA test pods). TPUs and other GPUs:
# no limit, as XPK's workload template (memory-backed, bounded by the node).
SHM_SIZE = {"tcpx": "128Gi", "tcpxo": "250Gi", "rdma": "250Gi"}

_TCPX_ENV = (
    ("NCCL_SOCKET_IFNAME", "eth0"),
    ("NCCL_ALGO", "Ring,Tree"),
    ("NCCL_PROTO", "Simple"),
    ("NCCL_CROSS_NIC", "0"),
    ("NCCL_NET_GDR_LEVEL", "PIX"),
    ("NCCL_P2P_PXN_LEVEL", "0"),
    ("NCCL_GPUDIRECTTCPX_SOCKET_IFNAME", "eth1,eth2,eth3,eth4"),
    ("NCCL_GPUDIRECTTCPX_CTRL_DEV", "eth0"),
    ("NCCL_DYNAMIC_CHUNK_SIZE", "524288"),
    ("NCCL_P2P_NET_CHUNKSIZE", "524288"),
    ("NCCL_P2P_PCI_CHUNKSIZE", "524288"),
    ("NCCL_P2P_NVL_CHUNKSIZE", "1048576"),
    ("NCCL_BUFFSIZE", "4194304"),
    ("NCCL_NSOCKS_PERTHREAD", "4"),
    ("NCCL_SOCKET_NTHREADS", "1"),
    (
        "NCCL_GPUDIRECTTCPX_TX_BINDINGS",
        "eth1:8-21,112-125;eth2:8-21,112-125;eth3:60-73,164-177;eth4:60-73,164-177",
    ),
    (
        "NCCL_GPUDIRECTTCPX_RX_BINDINGS",
        "eth1:22-35,126-139;eth2:22-35,126-139;eth3:74-87,178-191;eth4:74-87,178-191",
    ),
    ("NCCL_GPUDIRECTTCPX_PROGRAM_FLOW_STEERING_WAIT_MICROS", "500000"),
)

_TCPXO_ENV = (
    ("NCCL_FASTRAK_LLCM_DEVICE_DIRECTORY", "/dev/aperture_devices"),
    ("NCCL_FASTRAK_CTRL_DEV", "eth0"),
    ("NCCL_FASTRAK_IFNAME", "eth1,eth2,eth3,eth4,eth5,eth6,eth7,eth8"),
    ("NCCL_SOCKET_IFNAME", "eth0"),
    ("NCCL_CROSS_NIC", "0"),
    ("NCCL_PROTO", "Simple,LL128"),
    ("NCCL_MIN_NCHANNELS", "4"),
    ("NCCL_TUNER_PLUGIN", "libnccl-tuner.so"),
    ("NCCL_TUNER_CONFIG_PATH", f"{NVIDIA_LIB64}/a3plus_tuner_config.textproto"),
    (
        "NCCL_SHIMNET_GUEST_CONFIG_CHECKER_CONFIG_FILE",
        f"{NVIDIA_LIB64}/a3plus_guest_config.textproto",
    ),
    ("CUDA_VISIBLE_DEVICES", "0,1,2,3,4,5,6,7"),
    ("NCCL_NVLSTREE_MAX_CHUNKSIZE", "131072"),
    ("NCCL_P2P_NET_CHUNKSIZE", "524288"),
    ("NCCL_P2P_PCI_CHUNKSIZE", "524288"),
    ("NCCL_P2P_NVL_CHUNKSIZE", "1048576"),
    ("NCCL_FASTRAK_NUM_FLOWS", "2"),
    ("NCCL_FASTRAK_USE_SNAP", "1"),
    ("NCCL_FASTRAK_PLUGIN_ACCEPT_TIMEOUT_MS", "600000"),
    ("NCCL_FASTRAK_ENABLE_CONTROL_CHANNEL", "0"),
    ("NCCL_BUFFSIZE", "8388608"),
    ("NCCL_NET_GDR_LEVEL", "PIX"),
    ("NCCL_FASTRAK_ENABLE_HOTPATH_LOGGING", "0"),
    ("NCCL_FASTRAK_USE_LLCM", "1"),
    ("NCCL_NVLS_ENABLE", "1"),
    ("NCCL_DEBUG", "WARN"),
    ("NCCL_DEBUG_SUBSYS", "INIT,NET,ENV,COLL,GRAPH"),
)

GIB_INIT_SCRIPT = "/usr/local/gib/scripts/set_nccl_env.sh"
_RDMA_ENV = (
    ("NCCL_NET", "gIB"),
    ("NCCL_PLUGIN_PATH", "/usr/local/gib/lib64"),
    ("NCCL_INIT_SCRIPT", GIB_INIT_SCRIPT),
)
# The gIB plugin's settings come from a script in the plugin's folder (its content is not
# published); every Google RDMA pod spec sources it before NCCL starts.
RDMA_PRELUDE = 'if [ -r "$NCCL_INIT_SCRIPT" ]; then . "$NCCL_INIT_SCRIPT"; fi\n'

_FAMILY_ENV = {"tcpx": _TCPX_ENV, "tcpxo": _TCPXO_ENV, "rdma": _RDMA_ENV}

# A4X (GB200): multi-node NVLink through an IMEX channel of a ComputeDomain
# (resource.nvidia.com/v1beta1, the NVIDIA DRA driver), as nccl-test-imex-a4x.yaml.
COMPUTE_DOMAIN_API = "resource.nvidia.com/v1beta1"
COMPUTE_DOMAIN_CLAIM = "compute-domain-channel"


def _interfaces(accel: Accelerator) -> list[dict[str, str]]:
    found = [{"interfaceName": "eth0", "network": "default"}]
    for n, name in enumerate(network_names(accel), 1):
        found.append({"interfaceName": f"eth{n}", "network": name})
    return found


def _device_list(stack: str, gpus: int) -> str:
    paths = [f"/dev/nvidia{i}" for i in range(gpus)] + ["/dev/nvidiactl", "/dev/nvidia-uvm"]
    if stack == "tcpxo":
        paths.append("/dev/dmabuf_import_helper")
    return "".join(f"- path: {p}\n" for p in paths)


def pod_annotations(accel: Accelerator) -> dict[str, str]:
    """The pod template's annotations: the interfaces and, for TCPX(O), the daemon's devices."""
    stack = accel.gpu_network
    if stack is None:
        return {}
    found = {
        DEFAULT_INTERFACE: "eth0",
        INTERFACES: json.dumps(_interfaces(accel), separators=(",", ":")),
    }
    if stack in ("tcpx", "tcpxo"):
        found[DEVICES.format(f"{stack}-daemon")] = _device_list(stack, accel.chips_per_vm)
    return found


def compute_domain_name(workload: str) -> str:
    return f"{workload}-compute-domain"


def compute_domain(workload: str, namespace: str, nodes: int, owner_uid: Any) -> dict[str, Any]:
    """The ComputeDomain whose channel template the A4X pods claim, one per workload, owned by
    the workload's JobSet (`owner_uid`), so Kubernetes deletes it with the JobSet."""
    name = compute_domain_name(workload)
    owner = {
        "apiVersion": "jobset.x-k8s.io/v1alpha2",
        "kind": "JobSet",
        "name": workload,
        "uid": owner_uid,
        "blockOwnerDeletion": True,
    }
    return {
        "apiVersion": COMPUTE_DOMAIN_API,
        "kind": "ComputeDomain",
        "metadata": {
            "name": name,
            "namespace": namespace,
            "labels": {"app.kubernetes.io/managed-by": "xcli", "xcli/workload": workload},
            "ownerReferences": [owner],
        },
        "spec": {
            "numNodes": nodes,
            "channel": {"resourceClaimTemplate": {"name": f"{name}-channel"}},
        },
    }


def _host(name: str, path: str) -> dict[str, Any]:
    return {"name": name, "hostPath": {"path": path}}


def _mount(name: str, path: str) -> dict[str, str]:
    return {"name": name, "mountPath": path}


def shm_volume(size: str | None) -> dict[str, Any]:
    empty: dict[str, Any] = {"medium": "Memory"}
    if size:
        empty["sizeLimit"] = size
    return {"name": SHM_VOLUME, "emptyDir": empty}


def _daemon(stack: str) -> dict[str, Any]:
    """The RxDM daemon of TCPX or TCPXO as a native sidecar."""
    if stack == "tcpx":
        daemon: dict[str, Any] = {
            "name": "tcpx-daemon",
            "image": TCPX_DAEMON,
            "imagePullPolicy": "Always",
            "command": [
                "/tcpgpudmarxd/build/app/tcpgpudmarxd",
                "--gpu_nic_preset",
                "a3vm",
                "--gpu_shmem_type",
                "fd",
                "--uds_path",
                "/run/tcpx",
                "--setup_param",
                # Byte for byte what Google's manifests pass (a plain YAML scalar keeps the
                # backslashes): container-engine-accelerators 992db812
                # gpudirect-tcpx/nccl-test-latest.yaml l.74, as cluster-toolkit 1047080
                # examples/gke-a3-highgpu/nccl-test.yaml. XPK passes "--verbose 128 2 0 "
                # (quotes, no backslashes). How the daemon parses it is not published, so xcli
                # sends the argv Google runs rather than one no upstream runs.
                '\\"--verbose 128 2 0 \\"',
            ],
            "securityContext": {"capabilities": {"add": ["NET_ADMIN"]}},
            "volumeMounts": [
                _mount("libraries", NVIDIA_LIB64),
                _mount("tcpx-socket", "/run/tcpx"),
                _mount("sys", "/hostsysfs"),
                _mount("proc-sys", "/hostprocsysfs"),
            ],
        }
    else:
        daemon = {
            "name": "tcpxo-daemon",
            "image": TCPXO_DAEMON,
            "imagePullPolicy": "Always",
            "command": ["/bin/sh", "-c"],
            "args": [
                "set -ex\nchmod 755 /fts/entrypoint_rxdm_container.sh\n"
                "/fts/entrypoint_rxdm_container.sh --num_hops=2\n"
            ],
            "securityContext": {"capabilities": {"add": ["NET_ADMIN", "NET_BIND_SERVICE"]}},
            "volumeMounts": [
                _mount("libraries", NVIDIA_LIB64),
                _mount("sys", "/hostsysfs"),
                _mount("proc-sys", "/hostprocsysfs"),
            ],
        }
    daemon["env"] = [{"name": "LD_LIBRARY_PATH", "value": NVIDIA_LIB64}]
    daemon["restartPolicy"] = "Always"
    return daemon


def _volumes(stack: str) -> tuple[list[dict[str, Any]], list[dict[str, str]]]:
    """The pod's volumes and the main container's mounts of them (not /dev/shm)."""
    if stack == "tcpx":
        volumes = [
            _host("libraries", "/home/kubernetes/bin/nvidia/lib64"),
            _host("tcpx-socket", "/run/tcpx"),
            _host("sys", "/sys"),
            _host("proc-sys", "/proc/sys"),
        ]
        return volumes, [_mount("tcpx-socket", "/tmp"), _mount("libraries", NVIDIA_LIB64)]
    if stack == "tcpxo":
        volumes = [
            _host("libraries", "/home/kubernetes/bin/nvidia/lib64"),
            _host("sys", "/sys"),
            _host("proc-sys", "/proc/sys"),
            _host("aperture-devices", "/dev/aperture_devices"),
        ]
        mounts = [
            _mount("libraries", NVIDIA_LIB64),
            _mount("aperture-devices", "/dev/aperture_devices"),
        ]
        return volumes, mounts
    volumes = [
        _host("library-dir-host", "/home/kubernetes/bin/nvidia"),
        _host("gib", "/home/kubernetes/bin/gib"),
    ]
    return volumes, [
        _mount("library-dir-host", "/usr/local/nvidia"),
        _mount("gib", "/usr/local/gib"),
    ]


def _environment(
    stack: str, env: list[dict[str, Any]], user: tuple[tuple[str, str], ...]
) -> list[dict[str, Any]]:
    """The family's variables after xcli's contract and before the user's, which come last in
    `env` (`user`): a variable the user sets keeps the user's value."""
    names = {k for k, _ in user}
    family = [("LD_LIBRARY_PATH", NVIDIA_LIB64), *_FAMILY_ENV[stack]]
    added = [{"name": k, "value": v} for k, v in family if k not in names]
    cut = len(env) - len(user)
    return [*env[:cut], *added, *env[cut:]]


def decorate_pod(
    pod: dict[str, Any], accel: Accelerator, workload: str, user_env: tuple[tuple[str, str], ...]
) -> None:
    """Add /dev/shm and, on a GPUDirect family, its networking to `pod` (the main container is
    the first); `user_env` is the user's --env (it keeps its values)."""
    main = pod["containers"][0]
    stack = accel.gpu_network
    mounts: list[dict[str, str]] = []
    volumes: list[dict[str, Any]] = []
    if stack is not None:
        # The extra interfaces exist only in the pod's own network namespace.
        pod["hostNetwork"] = False
        pod.pop("dnsPolicy", None)
        volumes, mounts = _volumes(stack)
        main["env"] = _environment(stack, main["env"], user_env)
        if stack in ("tcpx", "tcpxo"):
            pod["initContainers"] = [*pod.get("initContainers", []), _daemon(stack)]
        if stack == "tcpx":
            main["securityContext"] = {"capabilities": {"add": ["IPC_LOCK"]}}
        if stack == "rdma":
            main["command"] = [*main["command"][:-1], RDMA_PRELUDE + main["command"][-1]]
        if needs_compute_domain(accel):
            _claim_compute_domain(pod, main, workload)
    volumes.append(shm_volume(SHM_SIZE.get(stack or "")))
    mounts.append(_mount(SHM_VOLUME, "/dev/shm"))
    main["volumeMounts"] = [*main.get("volumeMounts", []), *mounts]
    pod["volumes"] = [*pod.get("volumes", []), *volumes]


def _claim_compute_domain(pod: dict[str, Any], main: dict[str, Any], workload: str) -> None:
    template = f"{compute_domain_name(workload)}-channel"
    pod["resourceClaims"] = [{"name": COMPUTE_DOMAIN_CLAIM, "resourceClaimTemplateName": template}]
    main["resources"]["claims"] = [{"name": COMPUTE_DOMAIN_CLAIM}]
    pod["nodeSelector"]["kubernetes.io/arch"] = "arm64"
    pod["tolerations"].append(
        {"key": "kubernetes.io/arch", "operator": "Equal", "value": "arm64", "effect": "NoSchedule"}
    )
