"""The Network objects (networking.gke.io/v1) of each GPUDirect stack, by name: one place for
the cluster side (`cluster create` makes one GKENetworkParamSet and one Network per name) and
the workload side (the pod's `networking.gke.io/interfaces` annotation,
xcli/workload/jobset/gpu_network.py). Pure data, here in `plan` so providers and workloads can
both import it.

Names as in Google's published pod specs: vpc1..vpcN for TCPX (A3 High, 4 NICs) and TCPXO
(A3 Mega, 8 NICs), container-engine-accelerators gpudirect-tcpx/ and gpudirect-tcpxo/
nccl-test-latest.yaml; gvnic-1 and rdma-0..rdma-N-1 for RDMA, Cluster Toolkit's default
`k8s_network_names` and the names of the gpudirect-rdma/ test pods and of gpu-recipes' JobSets
(https://github.com/GoogleCloudPlatform/container-engine-accelerators,
https://github.com/GoogleCloudPlatform/cluster-toolkit,
https://github.com/AI-Hypercomputer/gpu-recipes). RDMA machines have one ConnectX-7 NIC per
GPU (8 on A3 Ultra and A4, 4 on A4X): `network_names` cuts the list to the machine.
"""

from __future__ import annotations

from xcli.catalog import Accelerator

# stack -> Network names in pod interface order, eth1 first (eth0 is the default network)
NETWORK_NAMES: dict[str, tuple[str, ...]] = {
    "tcpx": tuple(f"vpc{i}" for i in range(1, 5)),
    "tcpxo": tuple(f"vpc{i}" for i in range(1, 9)),
    "rdma": ("gvnic-1", *(f"rdma-{i}" for i in range(8))),
}


def network_names(accel: Accelerator) -> tuple[str, ...]:
    """The Network objects `accel`'s pods attach to, eth1 first; () without GPUDirect."""
    if accel.gpu_network is None:
        return ()
    names = NETWORK_NAMES[accel.gpu_network]
    if accel.gpu_network == "rdma":
        return names[: 1 + accel.chips_per_vm]  # gvnic-1, then one RDMA NIC per GPU
    return names
