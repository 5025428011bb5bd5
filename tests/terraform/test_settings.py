"""Pure Terraform-mode rules: settings, refusals, escaping, the state backend."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from tests.support.tfschema import parse
from tests.terraform.cases import CASES, create_argv, xcli
from xcli.errors import UserError
from xcli.providers.gke.terraform import TERRAFORM as GKE
from xcli.providers.gke.terraform import tf_node_pool_settings
from xcli.providers.queued_resource.options import qr_options
from xcli.providers.queued_resource.terraform import TERRAFORM as QR
from xcli.spec import TerraformMode
from xcli.templating import escape_template, hcl, render
from xcli.terraform import deployment_files, module_inputs


def test_v6e_256_x2_spot_settings() -> None:
    pools = tf_node_pool_settings(CASES["v6e-256-x2-spot"].spec())
    assert [p["name"] for p in pools] == ["demo-np-0", "demo-np-1"]
    assert {(p["machine_type"], p["node_count"], p["tpu_topology"], p["spot"]) for p in pools} == {
        ("ct6e-standard-4t", 64, "16x16", True)
    }


def test_flex_start_settings_and_inputs() -> None:
    spec = CASES["v5litepod-16-flex-start-6h"].spec()
    (pool,) = tf_node_pool_settings(spec)
    assert pool["flex_start"] and pool["max_run_duration"] == "21600s"
    assert pool["node_count"] == 4 and not pool["spot"] and pool["reservation"] is None
    inputs = module_inputs(spec, GKE)["tpu_node_pool"]
    assert inputs["auto_repair"] is False
    assert inputs["autoscaling"] == {
        "min_node_count": 0,
        "max_node_count": 4,
        "location_policy": "ANY",
    }


def test_gpu_flex_start_uses_queued_provisioning() -> None:
    spec = CASES["h100-80gb-8-x2"].spec()
    flex = replace(spec, capacity=replace(spec.capacity, kind="flex-start"))
    inputs = module_inputs(flex, GKE)["gpu_node_pool"]
    assert inputs["queued_provisioning"] and inputs["autoscaling"]["max_node_count"] == 2


def test_single_host_slice_has_no_placement() -> None:
    from xcli.catalog import lookup

    spec = replace(CASES["v6e-256-x2-spot"].spec(), accelerator=lookup("v6e-4"), num_slices=1)
    (pool,) = tf_node_pool_settings(spec)
    assert pool["tpu_topology"] is None and pool["node_count"] == 1
    assert module_inputs(spec, GKE)["tpu_node_pool"]["placement_type"] is None


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (("--provider", "queued-resource", "--tpu-type", "v6e-16", "--spot"), "--spot cannot"),
        (  # tpu7x is offered in us-central1-c (xcli/catalog/zones.json)
            ("--tpu-type", "tpu7x-128", "--spot", "--zone", "us-central1-c"),
            "workload-policy placement",
        ),
        (("--tpu-type", "v6e-16", "--spot", "--apply"), "--apply applies only with"),
        # issue 36: XPK's CPU shapes and empty clusters, not in the modules yet
        (("--device-type", "n2-standard-32-4", "--on-demand"), "a CPU shape cannot be written"),
        (("--tpu-type", "v6e-16", "--spot", "--num-slices", "0"), "--num-slices 0 cannot"),
        (("--tpu-type", "v6e-16", "--spot", "--terraform", "d", "--state-bucket", "B!"), "bucket"),
        (
            ("--provider", "local", "--tpu-type", "v6e-16", "--spot", "--terraform", "d"),
            "--terraform",
        ),
    ],
)
def test_refused_before_anything_is_written(
    flags: tuple[str, ...],
    message: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    argv = [
        "cluster",
        "create",
        "--cluster",
        "demo",
        "--project",
        "my-proj",
        "--zone",
        "us-east5-b",
    ]
    if "--terraform" not in flags and "--apply" not in flags:
        flags = (*flags, "--terraform", "d")
    assert xcli([*argv, *flags]) == 1
    err = capsys.readouterr().err
    assert message in err.splitlines()[0] and "hint:" in err
    assert list(work.iterdir()) == []


def test_hcl_literals_escape_template_sequences() -> None:
    assert hcl("a${b}%{c}") == '"a$${b}%%{c}"'
    assert escape_template({"k": ["${x}", 3]}) == {"k": ["$${x}", 3]}


def test_rendered_backend_escapes_values(tmp_path: Path) -> None:
    text = render(
        "terraform/versions.tf.j2",
        mode="gke",
        backend={"bucket": "b-1", "prefix": 'x/${path.module}/%{if true}y"z'},
    )
    assert 'prefix = "x/$${path.module}/%%{if true}y\\"z"' in text
    path = tmp_path / "versions.tf"
    path.write_text(text)
    backend = parse(path)["terraform"][0]["backend"][0]["gcs"]
    assert backend["bucket"] == "b-1"


def test_values_stay_out_of_hcl() -> None:
    """User values live in terraform.tfvars.json (literal), never in the .tf files."""
    spec = CASES["v6e-256-x2-queued-resource"].spec()
    spec = replace(spec, options=qr_options({"network": "net-${evil}", "subnetwork": "sub-%{x}"}))
    files = deployment_files(spec, "deploy", QR)
    tfvars = json.loads(files["terraform.tfvars.json"])["queued_resource"]
    assert tfvars["network"] == "net-${evil}" and tfvars["subnetwork"] == "sub-%{x}"
    for rel, text in files.items():
        if rel.endswith(".tf"):
            assert "evil" not in text and "sub-" not in text, rel


def test_state_bucket_backend() -> None:
    spec = CASES["v5p-128-reservation"].spec()
    with_gs = replace(spec, terraform=TerraformMode("d", state_bucket="gs://my-tf-state/"))
    assert (
        deployment_files(with_gs, "d", GKE)["versions.tf"]
        == deployment_files(spec, "d", GKE)["versions.tf"]
    )
    with pytest.raises(UserError):
        deployment_files(
            replace(spec, terraform=TerraformMode("d", state_bucket="Bad_Bucket")), "d", GKE
        )


def test_folder_of_another_cluster_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", str(tmp_path / "nobin"))
    case = CASES["v6e-256-x2-spot"]
    assert xcli(create_argv(case, "--terraform", "deploy")) == 0
    other = [a if a != "demo" else "other" for a in create_argv(case, "--terraform", "deploy")]
    capsys.readouterr()
    assert xcli(other) == 1
    assert "holds the deployment of cluster demo" in capsys.readouterr().err


def test_provider_flags_terraform_cannot_write_are_refused() -> None:
    import click

    from xcli.cli.terraform_mode import unsupported_flags

    decorators = [
        click.option("--runtime-version"),
        click.option("--service-account"),
        click.option("--network", default="default"),
        click.option("--internal-ips", is_flag=True),
    ]
    supported = {"runtime_version", "network"}
    values = {
        "runtime_version": "v2",
        "service_account": None,
        "network": "n",
        "internal_ips": False,
    }
    assert unsupported_flags(values, decorators, supported) == []
    values = {**values, "service_account": "sa@p.iam", "internal_ips": True}
    assert unsupported_flags(values, decorators, supported) == [
        "--service-account",
        "--internal-ips",
    ]
