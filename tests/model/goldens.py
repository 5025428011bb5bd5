"""The goldens the model runs over, and the cluster each workload golden would run on.

Cluster goldens (tests/goldens/gke, adapt) are checked on their own. A workload golden is checked
against the cluster plan of the same shape: the golden of that `cluster create` where one exists,
else that plan made here from its spec (the flags the workload golden's scenario gives, see
tests/cli/test_workload_cli.py SCENARIOS and METADATA, tests/cli/test_network_test.py and
tests/cli/test_team.py). `cluster test-network` goldens are text only; their manifests are read
back from the text form.
"""

from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import yaml
from click.testing import CliRunner

from tests.conftest import REPO
from xcli.catalog import lookup
from xcli.cli.main import cli
from xcli.plan.render import plan_json
from xcli.providers.gke.bodies import setup_steps
from xcli.providers.gke.planner import plan_create
from xcli.spec import Capacity, ClusterSpec

GOLDENS = REPO / "tests" / "goldens"
Plan = list[dict[str, Any]]


def _spec(device: str, capacity: Capacity, count: int) -> ClusterSpec:
    accel = lookup(device)
    if accel.kind == "gpu":
        return ClusterSpec("demo", "my-proj", "us-east5-b", "gke", accel, capacity, num_nodes=count)
    return ClusterSpec("demo", "my-proj", "us-east5-b", "gke", accel, capacity, count)


# A cluster a golden runs on: a cluster golden's name, or (device, Capacity, slices or nodes).
Source = str | tuple[str, Capacity, int]
ON_DEMAND = Capacity("on-demand")


@dataclass(frozen=True)
class Pairing:
    cluster: Source
    also: tuple[str, ...] = ()  # further plans applied before the golden (team create)


# workload / network / team golden -> the cluster it runs on. Workload goldens rendered from
# flags (no --cluster-metadata) say "capacity on-demand": their pools are on-demand.
WORKLOADS: dict[str, Pairing] = {
    "workload/v6e-256-x2.json": Pairing(("v6e-256", ON_DEMAND, 2)),
    "workload/v6e-256-x2-storage.json": Pairing(("v6e-256", ON_DEMAND, 2)),
    "workload/v5litepod-16-x1.json": Pairing(("v5litepod-16", ON_DEMAND, 1)),
    "workload/v5p-128-x4-spot.json": Pairing(("v5p-128", Capacity("spot"), 4)),
    "workload/tpu7x-8.json": Pairing(
        (
            "tpu7x-8",
            Capacity("reservation", reservation="projects/shared-proj/reservations/ironwood"),
            1,
        )
    ),
    # issue 38: a 4x4x8 slice on the four sub-blocks of the super-slicing cluster golden
    "workload/tpu7x-4x4x8-super-slicing.json": Pairing("gke/tpu7x-128-x4-super-slicing.json"),
    "workload/h100-80gb-8-x2.json": Pairing("gke/h100-80gb-8-x2-on-demand.json"),
    "workload/h100-mega-80gb-8-x4.json": Pairing(("h100-mega-80gb-8", ON_DEMAND, 4)),
    "workload/h200-141gb-8-x2.json": Pairing("gke/h200-141gb-8-x2-on-demand.json"),
    "workload/b200-8-x2.json": Pairing("gke/b200-8-x2-on-demand.json"),
    "workload/gb200-4-x18.json": Pairing(("gb200-4", ON_DEMAND, 18)),
    "workload/n2-standard-32-256.json": Pairing("gke/n2-standard-32-256-cpu.json"),
    # issue 25: Pathways heads on the cpu-np pool, workers on the v5p-128 pools
    "workload/pathways-batch.json": Pairing("gke/v5p-128-x2-pathways.json"),
    "workload/pathways-headless.json": Pairing("gke/v5p-128-x2-pathways.json"),
    "workload/pathways-elastic.json": Pairing("gke/v5p-128-x2-pathways.json"),
    # issue 38: workloads of other slice sizes on the v6e-256 NAP cluster (NAP makes the pools)
    "workload/v6e-16-x4-nap.json": Pairing("gke/v6e-256-nap-reservation.json"),
    "workload/v6e-64-x2-nap-spot.json": Pairing("gke/v6e-256-nap-reservation.json"),
    "network/h100-mega-80gb-8.txt": Pairing(("h100-mega-80gb-8", ON_DEMAND, 2)),
    "network/gb200-4.txt": Pairing(("gb200-4", ON_DEMAND, 4)),
    "team/workload-namespace-t.json": Pairing(
        ("v6e-256", Capacity("spot"), 2), also=("team/create-v6e-64.json",)
    ),
}
CLUSTERS = sorted(p.relative_to(GOLDENS).as_posix() for p in (GOLDENS / "gke").glob("*.json"))
# Not run on GKE nodes: VM workloads (queued resources, local) have no pods; storage and team
# plans add objects to a cluster, checked for their kinds (d) only.
OBJECT_ONLY = sorted(
    p.relative_to(GOLDENS).as_posix()
    for folder in ("storage", "adapt", "team")
    for p in (GOLDENS / folder).glob("*.json")
    if p.relative_to(GOLDENS).as_posix() not in WORKLOADS
)


def _text_manifests(text: str) -> Plan:
    """The k8s_apply steps of a plan's text form (`manifest:` then an indented JSON block)."""
    steps, lines, step_id = [], text.splitlines(), ""
    for n, line in enumerate(lines):
        head = line.strip()
        if head[:1].isdigit() and ". [" in head:
            step_id = head.split("[", 1)[1].split("]", 1)[0]
        if head == "manifest:":
            indent = len(lines[n + 1]) - len(lines[n + 1].lstrip())
            block = []
            for body in lines[n + 1 :]:
                if body.strip() and len(body) - len(body.lstrip()) < indent:
                    break
                block.append(body)
            steps.append(
                {"id": step_id, "kind": "k8s_apply", "manifest": json.loads("\n".join(block))}
            )
    return steps


@cache
def golden_plan(name: str) -> Plan:
    text = (GOLDENS / name).read_text(encoding="utf-8")
    if name.endswith(".txt"):
        return _text_manifests(text)
    plan: Plan = json.loads(text)["plan"]
    return plan


@cache
def _generated(device: str, capacity: Capacity, count: int) -> str:
    plan = plan_create(_spec(device, capacity, count), None, setup_steps)
    return plan_json(plan)


def cluster_plan(source: Source) -> Plan:
    if isinstance(source, str):
        return golden_plan(source)
    plan: Plan = json.loads(_generated(*source))["plan"]
    return plan


def applied_objects(plan: Plan) -> list[dict[str, Any]]:
    return [
        s["manifest"]
        for s in plan
        if s.get("kind") == "k8s_apply" and isinstance(s.get("manifest"), dict)
    ]


# Workloads no golden shows, rendered here for `workload create --cluster-metadata` of the
# cluster's own metadata ConfigMap (as `cluster create` writes it): name -> cluster.
MADE: dict[str, Source] = {
    "made/workload-on-v5litepod-16-flex-start": "gke/v5litepod-16-flex-start.json",
    "made/workload-on-h100-mega-80gb-8-x2-flex-start": (
        "h100-mega-80gb-8",
        Capacity("flex-start", max_run_duration=6 * 3600),
        2,
    ),
    "made/workload-on-v5p-128-reservation": "gke/v5p-128-reservation.json",
    "made/workload-on-v6e-256-x2-spot": "gke/v6e-256-x2-spot.json",
    # the largest shapes (issue 28): a workload of every slice on each
    "made/workload-on-tpu7x-512-x36-spot": "gke/tpu7x-512-x36-spot.json",
    "made/workload-on-v5p-12288-spot": "gke/v5p-12288-spot.json",
    "made/workload-on-v6e-256-x32-spot": "gke/v6e-256-x32-spot.json",
    # issue 32 item 4: an image built from a folder and pushed to the default repository
    "made/workload-with-built-image-on-v6e-256-x2-spot": "gke/v6e-256-x2-spot.json",
    # issue 38: node auto-provisioning; the TPU ones are of other slice sizes than the
    # cluster's (several slice sizes in one cluster), NAP making their pools
    "made/workload-v6e-16-x4-on-v6e-256-x2-nap-spot": "gke/v6e-256-x2-nap-spot.json",
    "made/workload-v6e-256-x4-on-v6e-256-nap-reservation": "gke/v6e-256-nap-reservation.json",
    "made/workload-on-a100-40gb-8-x2-nap-spot": "gke/a100-40gb-8-x2-nap-spot.json",
    "made/workload-on-a100-40gb-8-x2-nap-reservation": "gke/a100-40gb-8-x2-nap-reservation.json",
    # issue 38: several slice sizes in one cluster: the whole cluster as one 4x8x8 slice, and
    # two 4x4x4 slices, on the same four sub-blocks as workload/tpu7x-4x4x8-super-slicing.json
    "made/workload-4x8x8-on-tpu7x-128-x4-super-slicing": "gke/tpu7x-128-x4-super-slicing.json",
    "made/workload-2x4x4x4-on-tpu7x-128-x4-super-slicing": "gke/tpu7x-128-x4-super-slicing.json",
}
# extra flags of a made workload; SCRIPT_DIR is a folder made for the run
SCRIPT_DIR = "{script_dir}"
MADE_FLAGS: dict[str, list[str]] = {
    "made/workload-with-built-image-on-v6e-256-x2-spot": [
        "--base-docker-image", "python:3.10", "--script-dir", SCRIPT_DIR,
    ],
    "made/workload-v6e-16-x4-on-v6e-256-x2-nap-spot": ["--tpu-type", "v6e-16", "--num-slices", "4"],
    "made/workload-v6e-256-x4-on-v6e-256-nap-reservation": [
        "--tpu-type", "v6e-256", "--num-slices", "4",
    ],
    "made/workload-4x8x8-on-tpu7x-128-x4-super-slicing": ["--tpu-type", "tpu7x-4x8x8"],
    "made/workload-2x4x4x4-on-tpu7x-128-x4-super-slicing": [
        "--tpu-type", "tpu7x-4x4x4", "--num-slices", "2",
    ],
}  # fmt: skip
WORKLOAD_FLAGS = ["--workload", "train-1", "--docker-image", "us-docker.pkg.dev/p/r/t:1"]
WORKLOAD_FLAGS += ["--command", "python3 train.py", "--dry-run", "--output", "json"]


@cache
def _made(name: str) -> str:
    plan = cluster_plan(MADE[name])
    (data,) = [s["manifest"]["data"] for s in plan if s["id"] == "k8s-metadata"]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "metadata.yaml"
        path.write_text(yaml.safe_dump(dict(data)), encoding="utf-8")
        (Path(folder) / "src").mkdir()
        (Path(folder) / "src" / "train.py").write_text("print('step')\n", encoding="utf-8")
        extra = [f.replace(SCRIPT_DIR, str(Path(folder) / "src")) for f in MADE_FLAGS.get(name, [])]
        argv = ["workload", "create", "--project", data["project"], "--zone", data["zone"]]
        flags = list(WORKLOAD_FLAGS)
        if SCRIPT_DIR in MADE_FLAGS.get(name, []):  # an image built here, not --docker-image
            at = flags.index("--docker-image")
            del flags[at : at + 2]
        argv += ["--cluster", data["cluster"], "--cluster-metadata", str(path), *flags, *extra]
        result = CliRunner().invoke(cli, argv, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout


def made_plan(name: str) -> Plan:
    plan: Plan = json.loads(_made(name))["plan"]
    return plan
