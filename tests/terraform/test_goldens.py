"""Golden deployment folders, written by `cluster create --terraform DIR --dry-run --out OUT`.

`pytest --update-goldens` rewrites tests/goldens/terraform/<case>/ (the folder without modules/,
which must equal the shipped terraform/ modules byte for byte).
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from tests.support.tffolder import folder_pools, module_calls, module_inputs
from tests.support.tfschema import check_file, parse
from tests.terraform.cases import CASES, GOLDENS, create_argv, folder_files, xcli
from xcli import __version__
from xcli.providers.gke.terraform import tf_node_pool_settings
from xcli.providers.queued_resource.terraform import tf_queued_resource_settings
from xcli.resources import resource_dir


def render_case(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "out"
    argv = create_argv(CASES[name], "--terraform", "deploy", "--dry-run", "--out", str(out))
    assert xcli([*argv, "--output", "json"]) == 0
    assert not (tmp_path / "deploy").exists(), "a dry-run wrote outside --out"
    return out / "terraform"


def normalized(files: dict[str, str]) -> dict[str, str]:
    record = json.loads(files["xcli.json"])
    assert record["xcli_version"] == __version__
    record["xcli_version"] = "<version>"
    return {**files, "xcli.json": json.dumps(record, indent=2) + "\n"}


@pytest.mark.parametrize("case", sorted(CASES))
def test_golden_folder(
    case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, update_goldens: bool
) -> None:
    folder = render_case(case, tmp_path, monkeypatch)
    files = normalized(folder_files(folder))
    golden = GOLDENS / case
    if update_goldens:
        shutil.rmtree(golden, ignore_errors=True)
        for rel, text in files.items():
            (golden / rel).parent.mkdir(parents=True, exist_ok=True)
            (golden / rel).write_text(text, encoding="utf-8")
    assert golden.is_dir(), f"no golden for {case}; run pytest --update-goldens"
    assert files == folder_files(golden), f"{case} differs; review, then --update-goldens"


@pytest.mark.parametrize("case", sorted(CASES))
def test_modules_are_the_shipped_ones(
    case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = render_case(case, tmp_path, monkeypatch)
    record = json.loads((folder / "xcli.json").read_text())
    for module in record["modules"]:
        assert folder_files(folder / "modules" / module) == folder_files(
            resource_dir("terraform") / module
        )
    used = {body["source"] for body in module_calls(folder).values()}
    assert used == {f"./modules/{m}" for m in record["modules"]}


@pytest.mark.parametrize("case", sorted(CASES))
def test_every_tf_file_parses_and_fits_the_schema(
    case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = render_case(case, tmp_path, monkeypatch)
    tf_files = sorted(folder.rglob("*.tf"))
    assert len(tf_files) >= 9  # 5 root files and at least one module of 4
    for path in tf_files:
        assert check_file(path) == [], path
    json.loads((folder / "terraform.tfvars.json").read_text())


@pytest.mark.parametrize("case", sorted(CASES))
def test_module_calls_match_module_variables(
    case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each call passes only variables the module has, and every one it requires."""
    folder = render_case(case, tmp_path, monkeypatch)
    for name, call in module_calls(folder).items():
        module_dir = folder / call["source"]
        declared: dict[str, dict[str, object]] = {}
        for entry in parse(module_dir / "variables.tf")["variable"]:
            declared.update(entry)
        passed = set(call) - {"source", "depends_on"}
        assert passed <= set(declared), (name, passed - set(declared))
        required = {v for v, body in declared.items() if "default" not in body}
        assert required <= passed, (name, required - passed)
        module_inputs(folder, name)  # every var.x.y it reads is in terraform.tfvars.json


@pytest.mark.parametrize("case", sorted(CASES))
def test_folder_node_pools_equal_the_settings(
    case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = render_case(case, tmp_path, monkeypatch)
    spec = CASES[case].spec()
    if spec.provider == "queued-resource":
        qr = module_inputs(folder, "queued_resource")
        assert tf_queued_resource_settings(spec) == {
            "accelerator_type": qr["accelerator_type"],
            "runtime_version": qr["runtime_version"],
            "slices": qr["num_slices"],
            "capacity": "on-demand",  # the provider's queued resource has no other tier
        }
        return
    assert folder_pools(folder) == tf_node_pool_settings(spec)


@pytest.mark.parametrize("case", sorted(CASES))
def test_generated_folder_is_formatted(
    case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.terraform.test_modules import fmt_check

    fmt_check(render_case(case, tmp_path, monkeypatch))


@pytest.mark.parametrize("case", sorted(CASES))
def test_root_references_only_module_outputs_that_exist(
    case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = render_case(case, tmp_path, monkeypatch)
    sources = {name: call["source"] for name, call in module_calls(folder).items()}
    refs = set()
    for path in folder.glob("*.tf"):
        refs |= set(re.findall(r"module\.([a-z_]+)\.([a-z_]+)", path.read_text()))
    assert refs, "the root reads no module output"
    for module, output in refs:
        declared = set()
        for entry in parse(folder / sources[module] / "outputs.tf")["output"]:
            declared |= set(entry)
        assert output in declared, (module, output)


def test_dry_run_prints_the_same_bytes_twice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    outputs = []
    for fmt in ("json", "json", "text", "text"):
        capsys.readouterr()
        argv = create_argv(CASES["v5p-128-reservation"], "--terraform", "deploy", "--dry-run")
        assert xcli([*argv, "-o", fmt]) == 0
        outputs.append(capsys.readouterr().out)
    assert outputs[0] == outputs[1] and outputs[2] == outputs[3]
    plan = json.loads(outputs[0])
    assert {s["kind"] for s in plan["plan"]} == {"local"} and len(plan["plan"]) >= 15
    assert "terraform -chdir=deploy init -input=false" in outputs[2]
