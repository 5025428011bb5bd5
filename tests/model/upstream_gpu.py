"""xcli's GPUDirect objects against Google's manifests (container-engine-accelerators, pinned in
tests/data/upstream), field by field.

Installers (DaemonSets) are compared whole. Workload pods are compared on what GPUDirect needs:
the networking and device annotations, every sidecar (image, command, args, env, capabilities,
what it mounts from the host) and what the main container mounts; the names of volumes are not
compared, what they mount is. A difference xcli chooses is listed in CHOSEN with its reason;
any other is one line naming xcli's object, the field and the upstream file.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import yaml

from tests.conftest import DATA
from tests.model.fields import differences, unexplained

CEA = "GoogleCloudPlatform/container-engine-accelerators"
INSTALLER_FIELDS = ("metadata.name", "metadata.namespace", "spec")


@dataclass(frozen=True)
class Pair:
    """One xcli object (from a golden, by kind and name) and its upstream counterpart."""

    golden: str
    kind: str
    name: str
    upstream: str  # path under tests/data/upstream/<CEA>/
    chosen: tuple[tuple[str, str], ...]  # (fnmatch pattern of the field path, why)


OMITTED_VOLUME = "the installer's script never reads it; xcli leaves unused host paths out"
ONE_ACCELERATOR = "xcli's cluster has one accelerator type; it targets only that one"
NO_ECHO = 'drops the final `echo "installation finishes"` (a log line only)'
SIDECAR = "native sidecar (initContainers, restartPolicy Always), as gpudirect-tcpxo/best-practice.md advises"  # noqa: E501
SHM = "/dev/shm sized for training (250Gi on A3 Mega/Ultra, A4 as gpu-recipes' JobSets), not the 1Gi of a 2-pod test"  # noqa: E501
GVNIC1 = "xcli also attaches eth1 to gvnic-1, as gpu-recipes' a3ultra workload-jobset.yaml does; Google's 2-pod tests leave it out (audit D)"  # noqa: E501
TEMPLATE_LABEL = "xcli's DaemonSet selects on k8s-app, which upstream also sets; the extra `name` label is unused"  # noqa: E501

PAIRS: dict[str, Pair] = {
    "A3 High TCPX installer": Pair(
        "gke/h100-80gb-8-x2-on-demand.json",
        "DaemonSet",
        "nccl-tcpx-installer",
        "gpudirect-tcpx/nccl-tcpx-installer.yaml",
        (
            ("spec.template.spec.volumes[tcpx].*", OMITTED_VOLUME),
            ("spec.template.spec.initContainers[nccl-tcpx-installer].args", NO_ECHO),
            ("spec.template.metadata.labels.name", TEMPLATE_LABEL),
        ),
    ),
    "A3 Mega TCPXO installer": Pair(
        "gke/h100-mega-80gb-8-x4-spot.json",
        "DaemonSet",
        "nccl-tcpxo-installer",
        "gpudirect-tcpxo/nccl-tcpxo-installer.yaml",
        (
            ("spec.template.spec.volumes[tcpxo].*", OMITTED_VOLUME),
            (
                "spec.template.spec.initContainers[nccl-tcpxo-installer].args",
                NO_ECHO
                + "; and `chmod 755 /scripts/container_entry.sh` (audit C3: the v1.0.15 image "
                "ships it executable, xpk runs it without chmod)",
            ),
            (
                "spec.template.spec.initContainers[pre-installation].image",
                "ubuntu:24.04, a pinned tag instead of `latest` (audit D)",
            ),
            (
                "spec.template.spec.initContainers[pre-installation].command",
                "bash with a pipe instead of sh with process substitution, no sudo under "
                "nsenter -at 1, `|| true` on umount/chmod: the same aperture-device setup "
                "(audit D)",
            ),
            ("spec.template.metadata.labels.name", TEMPLATE_LABEL),
        ),
    ),
    "A3 Ultra / A4 gIB installer": Pair(
        "gke/h200-141gb-8-x2-on-demand.json",
        "DaemonSet",
        "nccl-rdma-installer",
        "gpudirect-rdma/nccl-rdma-installer.yaml",
        (
            ("spec.template.spec.affinity.*.values", ONE_ACCELERATOR),
            ("spec.template.spec.initContainers[nccl-rdma-installer].args", NO_ECHO),
            ("spec.template.metadata.labels.name", TEMPLATE_LABEL),
        ),
    ),
    "A4X gIB installer": Pair(
        "gke/gb200-4-x18-reservation.json",
        "DaemonSet",
        "nccl-rdma-installer",
        "gpudirect-rdma/nccl-rdma-installer-a4x.yaml",
        (
            ("spec.template.spec.volumes[nvidia-dir].*", OMITTED_VOLUME),
            ("spec.template.spec.initContainers[nccl-rdma-installer].args", NO_ECHO),
            ("spec.template.metadata.labels.name", TEMPLATE_LABEL),
        ),
    ),
    "NRI device injector (A3 High, A3 Mega)": Pair(
        "gke/h100-mega-80gb-8-x4-spot.json",
        "DaemonSet",
        "device-injector",
        "nri_device_injector/nri-device-injector.yaml",
        (
            ("spec.template.spec.volumes[root].*", OMITTED_VOLUME),
            ("spec.template.spec.affinity.*.values", ONE_ACCELERATOR),
            ("spec.template.metadata.labels.name", TEMPLATE_LABEL),
        ),
    ),
    "A3 High TCPX pod": Pair(
        "workload/h100-80gb-8-x2.json",
        "JobSet",
        "train-1",
        "gpudirect-tcpx/nccl-test-latest.yaml",
        (
            ("sidecars.tcpx-daemon.restartPolicy", SIDECAR),
            ("main.mounts./dev/shm", SHM),
            (
                "main.mounts./configs",
                "upstream's 2-pod test reads its NCCL settings and runner from a ConfigMap; "
                "xcli sets the same variables in the container's env (audit E.13)",
            ),
        ),
    ),
    "A3 Mega TCPXO pod": Pair(
        "workload/h100-mega-80gb-8-x4.json",
        "JobSet",
        "train-1",
        "gpudirect-tcpxo/nccl-test-latest.yaml",
        (("sidecars.tcpxo-daemon.restartPolicy", SIDECAR), ("main.mounts./dev/shm", SHM)),
    ),
    "A3 Ultra gIB pod": Pair(
        "workload/h200-141gb-8-x2.json",
        "JobSet",
        "train-1",
        "gpudirect-rdma/nccl-test.yaml",
        (("annotations.networking.gke.io/interfaces.eth1", GVNIC1),),
    ),
    "A4 gIB pod": Pair(
        "workload/b200-8-x2.json",
        "JobSet",
        "train-1",
        "gpudirect-rdma/nccl-test-a4.yaml",
        (("annotations.networking.gke.io/interfaces.eth1", GVNIC1),),
    ),
    "A4X gIB + IMEX pod": Pair(
        "workload/gb200-4-x18.json",
        "JobSet",
        "train-1",
        "gpudirect-rdma/nccl-test-imex-a4x.yaml",
        (
            ("annotations.networking.gke.io/interfaces.eth1", GVNIC1),
            (
                "main.mounts./usr/local/gib",
                "xcli mounts the gIB plugin for training pods, as gpu-recipes' A4/A3 Ultra "
                "JobSets do (workload-jobset.yaml) and NCCL_NET=gIB needs; the IMEX test "
                "runs its own image",
            ),
        ),
    ),
}


def _docs(path: str) -> list[dict[str, Any]]:
    text = (DATA / "upstream" / CEA / path).read_text(encoding="utf-8")
    return [d for d in yaml.safe_load_all(text) if d]


def _sources(pod: dict[str, Any]) -> dict[str, Any]:
    """volume name -> what it mounts (hostPath path, `emptyDir` with its medium, ...)."""
    out: dict[str, Any] = {}
    for vol in pod.get("volumes", []):
        if "hostPath" in vol:
            out[vol["name"]] = f"hostPath {vol['hostPath']['path']}"
        else:
            kind = next(k for k in vol if k != "name")
            out[vol["name"]] = f"{kind} {json.dumps(vol[kind], sort_keys=True)}"
    return out


def _annotation(key: str, value: str) -> Any:
    if key == "networking.gke.io/interfaces":
        return {i["interfaceName"]: i["network"] for i in json.loads(value)}
    if key.startswith("devices.gke.io/"):
        return sorted(d["path"] for d in yaml.safe_load(value))
    return value


def pod_view(template: dict[str, Any], main: str) -> dict[str, Any]:
    """What GPUDirect needs of a pod, names of volumes replaced by what they mount."""
    spec, sources = template["spec"], _sources(template["spec"])
    containers = spec.get("initContainers", []) + spec["containers"]
    view: dict[str, Any] = {"sidecars": {}, "main": {}}
    view["annotations"] = {
        k: _annotation(k, v)
        for k, v in template.get("metadata", {}).get("annotations", {}).items()
        if k.startswith(("networking.gke.io/", "devices.gke.io/"))
    }
    for c in containers:
        mounts = {m["mountPath"]: sources.get(m["name"]) for m in c.get("volumeMounts", [])}
        if c["name"] == main:
            view["main"] = {"mounts": mounts}
            continue
        view["sidecars"][c["name"]] = {
            "image": c.get("image"),
            "command": c.get("command"),
            "args": c.get("args"),
            "env": {e["name"]: e.get("value") for e in c.get("env", [])},
            "capabilities": c.get("securityContext", {}).get("capabilities"),
            "restartPolicy": c.get("restartPolicy"),
            "mounts": mounts,
        }
    return view


def _xcli_object(pair: Pair, plan: list[dict[str, Any]]) -> dict[str, Any]:
    for step in plan:
        obj = step.get("manifest")
        if (
            isinstance(obj, dict)
            and obj.get("kind") == pair.kind
            and obj["metadata"]["name"] == pair.name
        ):
            return obj
    raise AssertionError(f"{pair.golden}: no {pair.kind} {pair.name}")


def drift(pair: Pair, plan: list[dict[str, Any]]) -> list[str]:
    """One line per difference between xcli and upstream that CHOSEN does not explain."""
    ours = _xcli_object(pair, plan)
    docs = _docs(pair.upstream)
    if pair.kind == "DaemonSet":
        (theirs,) = [d for d in docs if d["kind"] == "DaemonSet"]
        diffs = differences(ours, theirs, INSTALLER_FIELDS)
    else:
        pod = next(d for d in docs if d["kind"] == "Pod")
        template = ours["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]
        main = next(c["name"] for c in pod["spec"]["containers"] if "daemon" not in c["name"])
        diffs = differences(pod_view(template, "main"), pod_view(pod, main), ("",))
    where = f"{pair.kind} {pair.name} ({pair.golden})"
    return [
        f"{where} {path}: xcli {mine!r}, upstream {up!r} ({CEA} {pair.upstream})"
        for path, mine, up in unexplained(diffs, dict(pair.chosen))
    ]
