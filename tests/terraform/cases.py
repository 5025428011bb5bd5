"""The golden Terraform cases: flags given to `cluster create`, and the same spec built by hand."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from tests.conftest import REPO
from xcli.catalog import lookup
from xcli.cli.errors import run_guarded
from xcli.cli.main import cli
from xcli.spec import ClusterSpec, TerraformMode, capacity_from_flags

GOLDENS = REPO / "tests" / "goldens" / "terraform"
PROJECT = "my-proj"
ZONE = "us-east5-b"


@dataclass(frozen=True)
class Case:
    flags: tuple[str, ...]
    provider: str
    accelerator: str
    capacity: dict[str, object]
    num_slices: int = 1
    num_nodes: int = 1
    state_bucket: str | None = None
    nap: bool = False  # --enable-autoprovisioning (issue 38)

    def spec(self) -> ClusterSpec:
        from xcli.providers.gke.options import GkeOptions
        from xcli.spec import ProviderOptions

        flags = {"on_demand": False, "spot": False, "reservation": None, "flex_start": False}
        return ClusterSpec(
            name="demo",
            project=PROJECT,
            zone=ZONE,
            provider=self.provider,
            accelerator=lookup(self.accelerator),
            capacity=capacity_from_flags(**{**flags, **self.capacity}),  # type: ignore[arg-type]
            num_slices=self.num_slices,
            num_nodes=self.num_nodes,
            terraform=TerraformMode("deploy", state_bucket=self.state_bucket),
            options=GkeOptions(autoprovisioning=True) if self.nap else ProviderOptions(),
        )


CASES: dict[str, Case] = {
    "v6e-256-x2-spot": Case(
        ("--tpu-type", "v6e-256", "--num-slices", "2", "--spot"),
        "gke",
        "v6e-256",
        {"spot": True},
        num_slices=2,
    ),
    "v5litepod-16-flex-start-6h": Case(
        ("--tpu-type", "v5litepod-16", "--flex-start", "--max-run-duration", "6h"),
        "gke",
        "v5litepod-16",
        {"flex_start": True, "max_run_duration": "6h"},
    ),
    "v5p-128-reservation": Case(
        ("--tpu-type", "v5p-128", "--reservation", "my-res", "--state-bucket", "my-tf-state"),
        "gke",
        "v5p-128",
        {"reservation": "my-res"},
        state_bucket="my-tf-state",
    ),
    "h100-80gb-8-x2": Case(
        ("--device-type", "h100-80gb-8", "--num-nodes", "2", "--on-demand"),
        "gke",
        "h100-80gb-8",
        {"on_demand": True},
        num_nodes=2,
    ),
    "h100-80gb-8-x2-flex-start-6h": Case(
        (
            "--device-type",
            "h100-80gb-8",
            "--num-nodes",
            "2",
            "--flex-start",
            "--max-run-duration",
            "6h",
        ),
        "gke",
        "h100-80gb-8",
        {"flex_start": True, "max_run_duration": "6h"},
        num_nodes=2,
    ),
    "h200-141gb-8-x2-spot": Case(
        ("--device-type", "h200-141gb-8", "--num-nodes", "2", "--spot"),
        "gke",
        "h200-141gb-8",
        {"spot": True},
        num_nodes=2,
    ),
    # node auto-provisioning: the cluster's cluster_autoscaling block, no pool module
    "v6e-256-x2-nap-spot": Case(
        ("--tpu-type", "v6e-256", "--num-slices", "2", "--spot", "--enable-autoprovisioning"),
        "gke",
        "v6e-256",
        {"spot": True},
        num_slices=2,
        nap=True,
    ),
    "v6e-256-x2-queued-resource": Case(
        (
            "--provider",
            "queued-resource",
            "--tpu-type",
            "v6e-256",
            "--num-slices",
            "2",
            "--on-demand",
        ),
        "queued-resource",
        "v6e-256",
        {"on_demand": True},
        num_slices=2,
    ),
}


def create_argv(case: Case, *extra: str) -> list[str]:
    place = ["--project", PROJECT, "--zone", ZONE]
    return ["cluster", "create", "--cluster", "demo", *case.flags, *place, *extra]


def xcli(argv: Sequence[str]) -> int:
    return run_guarded(cli, list(argv), debug=False)


def folder_files(folder: Path, *, with_modules: bool = False) -> dict[str, str]:
    return {
        p.relative_to(folder).as_posix(): p.read_text(encoding="utf-8")
        for p in sorted(folder.rglob("*"))
        if p.is_file()
        and (with_modules or not p.relative_to(folder).as_posix().startswith("modules/"))
    }
