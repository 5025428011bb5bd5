"""The in-cluster objects of a GPUDirect network stack, as dicts (pure).

- One GKENetworkParamSet and one Network (networking.gke.io/v1, cluster-scoped) per extra NIC:
  the param set names the VPC and subnet and the device mode (NetDevice for gVNIC, RDMA for the
  ConnectX-7 NICs); the Network is of type Device and points at it. Field names from the Go
  types of the GKE networking API (https://github.com/GoogleCloudPlatform/gke-networking-api,
  apis/network/v1) and Google's multi-network page
  (https://cloud.google.com/kubernetes-engine/docs/how-to/setup-multinetwork-support-for-pods).
- The family's NCCL plugin installer DaemonSet in kube-system, and for A3 High/Mega the NRI
  device injector, written here from the facts of Google's manifests
  (https://github.com/GoogleCloudPlatform/container-engine-accelerators at commit 992db812:
  gpudirect-tcpx/, gpudirect-tcpxo/, gpudirect-rdma/, nri_device_injector/): which image (pinned
  by tag, or digest where Google pins one), which nodes, which host paths it fills.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from xcli.plan.model import Step
from xcli.plan.steps import K8sApply, Text
from xcli.providers.gke import dra_driver
from xcli.providers.gke.gpu_network import GpuNetwork, Subnet, gpu_network
from xcli.spec import ClusterSpec

NETWORKING = "networking.gke.io/v1"
PAUSE = (
    "gke.gcr.io/pause:3.8@sha256:880e63f94b145e46f1b1082bb71b85e21f16b99b180b9996407d61240ceb9830"
)
ACCELERATOR_LABEL = "cloud.google.com/gke-accelerator"
REGISTRY = "us-docker.pkg.dev/gce-ai-infra"
TCPX_PLUGIN = f"{REGISTRY}/gpudirect-tcpx/nccl-plugin-gpudirecttcpx-dev:v3.1.9"
TCPXO_PLUGIN = f"{REGISTRY}/gpudirect-tcpxo/nccl-plugin-gpudirecttcpx-dev:v1.0.15"
GIB_PLUGIN = f"{REGISTRY}/gpudirect-gib/nccl-plugin-gib:v1.1.1"
GIB_PLUGIN_ARM64 = f"{REGISTRY}/gpudirect-gib/nccl-plugin-gib-arm64:v1.1.0"
PRE_INSTALL_IMAGE = "ubuntu:24.04"  # runs only nsenter into the host
NRI_INJECTOR = (
    "gcr.io/gke-release/nri-device-injector"
    "@sha256:6e79483d52abdc28454bf186320b10a56b0f117a10e8d65d5c74dbb821a76970"
)
LABELS = {"app.kubernetes.io/managed-by": "xcli"}

# A3 Mega: expose the TCPXO aperture devices (PCI 1ae0:0084) under /dev/aperture_devices, open
# TCP input and load the import-helper module, in the host's namespaces.
APERTURE_SCRIPT = """\
/sbin/iptables -I INPUT -p tcp -m tcp -j ACCEPT && modprobe import-helper
mkdir -p /dev/aperture_devices
lspci -nn -D | grep '1ae0:0084' | awk '{print $1}' | while read -r bdf; do
  dir=/dev/aperture_devices/$bdf
  mkdir -p "$dir"
  umount -R "$dir" 2>/dev/null || true
  mount --bind "$(readlink -f /sys/bus/pci/devices/$bdf)" "$dir"
done
if [ -d /dev/aperture_devices ]; then
  chmod -R a+r /dev/aperture_devices/
  chmod a+rw /dev/aperture_devices/*/resource* 2>/dev/null || true
fi
"""


def param_set(project_vpc: Subnet) -> dict[str, Any]:
    return {
        "apiVersion": NETWORKING,
        "kind": "GKENetworkParamSet",
        "metadata": {"name": project_vpc.k8s_name, "labels": dict(LABELS)},
        "spec": {
            "vpc": project_vpc.network,
            "vpcSubnet": project_vpc.name,
            "deviceMode": project_vpc.device_mode,
        },
    }


def network_object(nic: Subnet) -> dict[str, Any]:
    return {
        "apiVersion": NETWORKING,
        "kind": "Network",
        "metadata": {"name": nic.k8s_name, "labels": dict(LABELS)},
        "spec": {
            "type": "Device",
            "parametersRef": {
                "group": "networking.gke.io",
                "kind": "GKENetworkParamSet",
                "name": nic.k8s_name,
            },
        },
    }


def _daemonset(name: str, affinity: list[dict[str, Any]], pod: dict[str, Any]) -> dict[str, Any]:
    labels = {"k8s-app": name}
    spec = {
        "priorityClassName": "system-node-critical",
        "affinity": {
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [{"matchExpressions": affinity}]
                }
            }
        },
        "tolerations": [{"operator": "Exists"}],
        "hostNetwork": True,
        "hostPID": True,
        **pod,
    }
    return {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {"name": name, "namespace": "kube-system", "labels": {**labels, **LABELS}},
        "spec": {
            "selector": {"matchLabels": labels},
            "updateStrategy": {"type": "RollingUpdate"},
            "template": {"metadata": {"labels": labels}, "spec": spec},
        },
    }


def _on(values: list[str], arm64: bool = False) -> list[dict[str, Any]]:
    terms = [{"key": ACCELERATOR_LABEL, "operator": "In", "values": values}]
    if arm64:
        terms.append({"key": "kubernetes.io/arch", "operator": "In", "values": ["arm64"]})
    return terms


def _host(name: str, path: str, kind: str | None = None) -> dict[str, Any]:
    host: dict[str, Any] = {"path": path}
    if kind:
        host["type"] = kind
    return {"name": name, "hostPath": host}


def _installer_container(name: str, image: str, script: str, mounts: list[Any]) -> dict[str, Any]:
    return {
        "name": name,
        "image": image,
        "command": ["/bin/sh", "-c"],
        "args": [script],
        "resources": {"requests": {"cpu": "150m"}},
        "securityContext": {"privileged": True},
        "volumeMounts": mounts,
    }


def _pause() -> list[dict[str, Any]]:
    return [{"name": "pause", "image": PAUSE}]


def tcpx_installer(stack: str, gke_accelerator: str) -> dict[str, Any]:
    """TCPX (A3 High) or TCPXO (A3 Mega): install the plugin and NCCL into the host's
    /home/kubernetes/bin/nvidia/lib64, where the GPU containers mount it."""
    image = TCPX_PLUGIN if stack == "tcpx" else TCPXO_PLUGIN
    # Upstream's TCPXO installer makes the entry script executable first, the TCPX one does
    # not (container-engine-accelerators 992db812 gpudirect-tcpxo/nccl-tcpxo-installer.yaml
    # l.87; gpudirect-tcpx/nccl-tcpx-installer.yaml l.60-61).
    chmod = "chmod 755 /scripts/container_entry.sh\n" if stack == "tcpxo" else ""
    script = (
        "set -ex\n"
        f"{chmod}"
        "/scripts/container_entry.sh install --install-nccl\n"
        "mkdir -p /usr/local/nvidia/lib64\n"
        f"cp -r /var/lib/{stack}/lib64/. /usr/local/nvidia/lib64\n"
    )
    mounts = [
        {"name": "var-lib", "mountPath": "/var/lib"},
        {"name": "library-dir-host", "mountPath": "/usr/local"},
    ]
    init = [_installer_container(f"nccl-{stack}-installer", image, script, mounts)]
    if stack == "tcpxo":
        pre = {
            "name": "pre-installation",
            "image": PRE_INSTALL_IMAGE,
            "command": ["nsenter", "-at", "1", "--", "bash", "-c", APERTURE_SCRIPT],
            "securityContext": {"privileged": True},
        }
        init.insert(0, pre)
    volumes = [_host("var-lib", "/var/lib"), _host("library-dir-host", "/home/kubernetes/bin")]
    pod = {"volumes": volumes, "initContainers": init, "containers": _pause()}
    return _daemonset(f"nccl-{stack}-installer", _on([gke_accelerator]), pod)


def rdma_installer(gke_accelerator: str, arm64: bool) -> dict[str, Any]:
    """gIB (A3 Ultra, A4, A4X): the NCCL RDMA plugin into /home/kubernetes/bin/nvidia/lib64 and
    its scripts and configs into /home/kubernetes/bin/gib."""
    lib = "/usr/local/home/kubernetes/bin/nvidia/lib64"
    gib = "/usr/local/home/kubernetes/bin/gib"
    script = (
        "set -ex\n"
        "/scripts/container_entry.sh install\n"
        f"cp -r /var/lib/gib/lib64/. {lib}\n"
        f"cp -r /var/lib/gib/. {gib}\n"
    )
    mounts = [
        {"name": "library-dir-host", "mountPath": lib},
        {"name": "gib", "mountPath": gib},
    ]
    image = GIB_PLUGIN_ARM64 if arm64 else GIB_PLUGIN
    volumes = [
        _host("library-dir-host", "/home/kubernetes/bin/nvidia/lib64", "DirectoryOrCreate"),
        _host("gib", "/home/kubernetes/bin/gib"),
    ]
    pod = {
        "volumes": volumes,
        "initContainers": [_installer_container("nccl-rdma-installer", image, script, mounts)],
        "containers": _pause(),
    }
    return _daemonset("nccl-rdma-installer", _on([gke_accelerator], arm64), pod)


def nri_injector(gke_accelerator: str) -> dict[str, Any]:
    """The NRI device injector: puts the devices a pod's devices.gke.io/container.<name>
    annotation lists into that container (the TCPX/TCPXO daemons need the GPUs)."""
    container = {
        "name": "device-injector",
        "image": NRI_INJECTOR,
        "resources": {"requests": {"cpu": "150m"}},
        "securityContext": {"privileged": True},
        "volumeMounts": [
            {"name": "dev", "mountPath": "/dev"},
            {"name": "nri", "mountPath": "/var/run/nri"},
        ],
    }
    volumes = [_host("nri", "/var/run/nri"), _host("dev", "/dev")]
    pod = {"volumes": volumes, "containers": [container]}
    return _daemonset("device-injector", _on([gke_accelerator]), pod)


def objects(spec: ClusterSpec, net: GpuNetwork) -> list[dict[str, Any]]:
    """Every object of the stack, in apply order."""
    accel = spec.accelerator
    out: list[dict[str, Any]] = []
    for nic in net.nics:
        out += [param_set(nic), network_object(nic)]
    if net.stack == "rdma":
        out.append(rdma_installer(accel.gke_accelerator, accel.arch == "arm64"))
    else:
        out += [
            tcpx_installer(net.stack, accel.gke_accelerator),
            nri_injector(accel.gke_accelerator),
        ]
    return out


def object_steps(spec: ClusterSpec, cluster: Text, after: tuple[str, ...]) -> list[Step]:
    """One server-side apply per object, once the cluster answers; a Network after its
    GKENetworkParamSet. On A4X, then the NVIDIA DRA driver (dra_driver.py)."""
    net = gpu_network(spec)
    if net is None:
        return []
    steps: list[Step] = []
    for obj in objects(spec, net):
        kind, name = obj["kind"], obj["metadata"]["name"]
        sid = f"k8s-gpunet-{kind.lower()}-{name}"
        deps = after
        if kind == "Network":
            deps = (f"k8s-gpunet-gkenetworkparamset-{name}",)
        where = f"{obj['metadata']['namespace']}/" if "namespace" in obj["metadata"] else ""
        steps.append(
            K8sApply(
                id=sid,
                summary=f"apply {kind} {where}{name}",
                after=deps,
                cluster=cluster,
                manifest=obj,
            )
        )
    return steps + dra_driver.steps(spec, cluster, after)


def with_objects(setup: Sequence[Step], objects: Sequence[Step]) -> list[Step]:
    """The in-cluster setup with the stack's objects applied before the metadata ConfigMap,
    whose presence says the cluster is ready for workloads (xcli.plan.gke.incluster)."""
    if not objects:
        return list(setup)
    ids = tuple(s.id for s in objects)
    out: list[Step] = []
    for step in setup:
        if step.id == "k8s-metadata":
            out += objects
            step = replace(step, after=(*step.after, *ids))
        out.append(step)
    if len(out) == len(setup):  # a setup without the metadata step
        out += objects
    return out
