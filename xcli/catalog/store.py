"""Loads accelerators.json once and answers look-ups with did-you-mean errors."""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any

from xcli.catalog.model import Accelerator, Figure
from xcli.catalog.topology import FamilyRules, format_topology, parse_topology, product
from xcli.errors import NotFoundError, UserError

# h100-80gb-8, or a variant of a machine (gb200-4-nolssd: the "variants" of a GPU entry)
_GPU_NAME = re.compile(r"^(?P<type>[a-z0-9-]+?)-(?P<count>\d+)(?:-(?P<variant>[a-z]+))?$")


@cache
def _data() -> dict[str, Any]:
    # beside this module in the wheel and in a checkout (importlib.resources costs its imports)
    text = Path(__file__).with_name("accelerators.json").read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


@cache
def families() -> dict[str, FamilyRules]:
    """TPU family name -> its rules."""
    return {name: FamilyRules(name, spec) for name, spec in _data()["tpu_families"].items()}


def family_names() -> list[str]:
    return [*families(), *_data()["gpus"], *_data()["cpus"]]


@cache
def _prefixes() -> dict[str, FamilyRules]:
    return {rules.prefix: rules for rules in families().values()}


def _figure(spec: dict[str, Any]) -> Figure:
    return Figure(spec["value"], spec["unit"], spec["source"], spec.get("note", ""))


def _tpu(rules: FamilyRules, dims: tuple[int, ...]) -> Accelerator:
    spec = rules.data
    chips = product(dims)
    per_vm = 1 if chips == 1 else 4
    topology = format_topology(dims)
    single_host_max = spec.get("tpu_api_single_host_max_chips", 4)
    tpu_vms = 1 if chips <= single_host_max else chips // 4
    multi_host = chips > per_vm
    return Accelerator(
        name=f"{rules.prefix}-{chips * rules.cores_per_chip}",
        family=rules.name,
        kind="tpu",
        topology=topology,
        topology_name=f"{rules.prefix}-{topology}",
        chips=chips,
        chips_per_vm=per_vm,
        vms_per_slice=chips // per_vm,
        machine_type=spec["machine_types"][str(per_vm)],
        gke_accelerator=spec["gke_accelerator"],
        gke_label="cloud.google.com/gke-tpu-accelerator",
        resource_name="google.com/tpu",
        tpu_accelerator_type=(
            f"{rules.prefix}-{chips * rules.cores_per_chip}" if spec["tpu_api_type"] else None
        ),
        tpu_api_type=spec["tpu_api_type"],
        tpu_api_vms_per_slice=tpu_vms if spec["tpu_api_type"] else None,
        runtime_version=spec["runtime_version"],
        placement=spec["multihost_placement"] if multi_host else None,
        arch="amd64",
        peak_bf16_tflops=_figure(spec["peak_bf16_tflops"]),
        hbm=_figure(spec["hbm"]),
        hbm_bandwidth=_figure(spec["hbm_bandwidth"]),
        sources=dict(spec["sources"]),
    )


def _gpu_counts(gpu_type: str, variant: str | None) -> dict[str, str]:
    """Machine type per GPU count, of the base machine or of one of its variants."""
    spec = _data()["gpus"][gpu_type]
    if variant is None:
        counts: dict[str, str] = spec["machine_types"]
        return counts
    return dict(spec.get("variants", {}).get(variant, {}).get("machine_types", {}))


def _gpu_names(gpu_type: str) -> list[str]:
    spec = _data()["gpus"][gpu_type]
    names = [f"{gpu_type}-{n}" for n in spec["machine_types"]]
    for variant, data in spec.get("variants", {}).items():
        names += [f"{gpu_type}-{n}-{variant}" for n in data["machine_types"]]
    return names


def _gpu(gpu_type: str, count: int, variant: str | None = None) -> Accelerator:
    spec = _data()["gpus"][gpu_type]
    sources = _gpu_sources(spec)
    if variant:
        sources["variant"] = spec["variants"][variant]["source"]
    return Accelerator(
        name=f"{gpu_type}-{count}" + (f"-{variant}" if variant else ""),
        family=gpu_type,
        kind="gpu",
        topology=spec.get("topology"),
        topology_name=None,
        chips=count,
        chips_per_vm=count,
        vms_per_slice=1,
        machine_type=_gpu_counts(gpu_type, variant)[str(count)],
        gke_accelerator=spec["gke_accelerator"],
        gke_label="cloud.google.com/gke-accelerator",
        resource_name="nvidia.com/gpu",
        tpu_accelerator_type=None,
        tpu_api_type=None,
        tpu_api_vms_per_slice=None,
        runtime_version=None,
        placement=None,
        arch=spec.get("arch", "amd64"),
        peak_bf16_tflops=_figure(spec["peak_bf16_tflops"]),
        hbm=_figure(spec["hbm"]),
        hbm_bandwidth=_figure(spec["hbm_bandwidth"]),
        sources=sources,
        gpu_network=spec["gpu_network"]["stack"] if "gpu_network" in spec else None,
    )


# the node label a CPU shape's pools carry (NodeConfig.labels) and its flavor selects; the same
# key as the GCE resource label every xcli pool has
CPU_LABEL = "xcli-accelerator"
_NO_ACCELERATOR = "a CPU-only shape has no accelerator"


def _cpu_names(machine: str) -> list[str]:
    return [f"{machine}-{n}" for n in _data()["cpus"][machine]["vm_counts"]]


def _cpu(machine: str, vms: int) -> Accelerator:
    spec = _data()["cpus"][machine]
    none = Figure(0, "", spec["source"], _NO_ACCELERATOR)
    name = f"{machine}-{vms}"
    return Accelerator(
        name=name,
        family=machine,
        kind="cpu",
        topology=None,
        topology_name=None,
        chips=spec["vcpus"] * vms,
        chips_per_vm=spec["vcpus"],
        vms_per_slice=vms,
        machine_type=machine,
        gke_accelerator=name,
        gke_label=CPU_LABEL,
        resource_name="cpu",
        tpu_accelerator_type=None,
        tpu_api_type=None,
        tpu_api_vms_per_slice=None,
        runtime_version=None,
        placement=None,
        arch="amd64",
        peak_bf16_tflops=none,
        hbm=Figure(spec["memory_gb"], "GB", spec["source"], "the machine's memory"),
        hbm_bandwidth=none,
        sources={"shapes": spec["shapes"], "machine_types": spec["source"]},
    )


def cpu_request(accel: Accelerator) -> int:
    """The vCPUs a CPU shape's pod requests on its VM: 95% of them, at least 1, leaving the
    rest to the system pods (XPK's rule, src/xpk/core/docker_resources.py l.51-64)."""
    return max(1, int(accel.chips_per_vm * 0.95))


def published_busbw(accel: Accelerator) -> Figure | None:
    """The NCCL all_gather_perf bus bandwidth Google published for `accel`'s machine on two
    nodes (GB/s), or None where none is published (A4, A4X)."""
    if accel.kind != "gpu":
        return None
    network = _data()["gpus"].get(accel.family, {}).get("gpu_network", {})
    return _figure(network["nccl_busbw"]) if "nccl_busbw" in network else None


def _gpu_sources(spec: Any) -> dict[str, str]:
    sources = {"machine_types": "https://cloud.google.com/compute/docs/gpus"}
    if "gpu_network" in spec:
        sources["gpu_network"] = spec["gpu_network"]["source"]
    return sources


@cache
def all_names(family: str | None = None) -> list[str]:
    """Canonical names (count form), TPU families first, in catalogue order."""
    names: list[str] = []
    for name, rules in families().items():
        if family in (None, name):
            names.extend(rules.count_names())
    for gpu_type in _data()["gpus"]:
        if family in (None, gpu_type):
            names.extend(_gpu_names(gpu_type))
    for machine in _data()["cpus"]:
        if family in (None, machine):
            names.extend(_cpu_names(machine))
    return names


@cache
def lookup(name: str) -> Accelerator:
    """Return the accelerator a name stands for, or raise a UserError that says what to use."""
    if name != name.strip() or not name.isprintable():
        raise NotFoundError(
            f"accelerator name {name!r} has whitespace or control characters",
            hint=f"write it without them, e.g. {name.strip()!r}"
            if name.strip().isprintable() and name.strip()
            else "`xcli catalog list` shows every name",
        )
    if not name.isascii():  # int() reads full-width and other digits as 0-9: refuse them
        import unicodedata

        plain = unicodedata.normalize("NFKC", name)
        raise NotFoundError(
            f"accelerator name {name!r} has characters other than ASCII letters and digits",
            hint=f"write it in ASCII, e.g. {plain!r}"
            if plain.isascii()
            else "`xcli catalog list` shows every name",
        )
    text = name.lower()
    gpu = _GPU_NAME.match(text)
    if gpu and gpu["type"] in _data()["gpus"]:
        if gpu["count"] in _gpu_counts(gpu["type"], gpu["variant"]):
            return _gpu(gpu["type"], int(gpu["count"]), gpu["variant"])
        names = _gpu_names(gpu["type"])
        import difflib

        close = difflib.get_close_matches(text, names, n=1, cutoff=0.8) or names
        raise UserError(
            f"{name}: {gpu['type']} comes in {', '.join(names)}",
            hint=f"did you mean {' or '.join(close)}?",
        )
    prefix, _, size = text.rpartition("-")
    if prefix in _data()["cpus"]:
        if size in (str(n) for n in _data()["cpus"][prefix]["vm_counts"]):
            return _cpu(prefix, int(size))
        names = _cpu_names(prefix)
        raise UserError(
            f"{name}: XPK's CPU shapes of {prefix} are {', '.join(names)} (<machine>-<VMs>)",
            hint=f"pick one of those VM counts, e.g. {names[-1]}",
        )
    rules = _prefixes().get(prefix)
    if rules is None:
        raise _unknown(name)
    if size.isdigit():
        return _tpu(rules, rules.shape_for_count(int(size)))
    try:
        dims = parse_topology(size)
    except ValueError:
        raise _unknown(name) from None
    rules.check_topology(dims)
    return _tpu(rules, dims)


def _unknown(name: str) -> NotFoundError:
    alias = _family_alias(name)
    if alias:
        close = [alias]
    else:
        candidates = all_names() + [f"{r.prefix}-" for r in families().values()]
        import difflib

        close = difflib.get_close_matches(name.lower(), candidates, n=3, cutoff=0.5)
    hint = f"did you mean {' or '.join(close)}? " if close else ""
    return NotFoundError(
        f"unknown accelerator {name!r}",
        hint=hint + "`xcli catalog list` shows every name",
    )


def _family_alias(name: str) -> str | None:
    """A family's name used as its TPU type prefix (v5e-16 for v5litepod-16): the same size
    under the real prefix when that is a valid shape, else the bare prefix."""
    family, _, size = name.strip().lower().rpartition("-")
    rules = families().get(family)
    if rules is None or rules.prefix == family:
        return None
    try:
        return lookup(f"{rules.prefix}-{size}").name
    except UserError:
        return f"{rules.prefix}-"
