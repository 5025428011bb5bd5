"""--apply and delete run a real process: a stand-in `terraform` script on PATH that records
its arguments, prints lines, and fails when told to. Nothing here reaches any outside host."""

from __future__ import annotations

import io
import json
import shlex
import sys
from pathlib import Path

import pytest

from tests.terraform.cases import CASES, create_argv, xcli

FAKE = """#!{python}
import json, os, sys
args = sys.argv[1:]
with open(os.environ["FAKE_TF_LOG"], "a") as log:
    log.write(json.dumps(args) + "\\n")
verb = args[1]
if verb == "output":
    print(json.dumps({{"cluster_name": {{"value": "demo", "sensitive": False}},
                      "token": {{"value": "s3cret", "sensitive": True}}}}))
else:
    print(f"fake terraform {{verb}}: line 1")
    print(f"fake terraform {{verb}}: line 2")
if os.environ.get("FAKE_TF_FAIL") == verb:
    print(f"Error: {{verb}} went wrong", file=sys.stderr)
    sys.exit(1)
"""


@pytest.fixture
def fake_terraform(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A `terraform` on an otherwise empty PATH; returns the log of its invocations."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    script = bindir / "terraform"
    script.write_text(FAKE.format(python=sys.executable))
    script.chmod(0o755)
    log = tmp_path / "terraform.log"
    monkeypatch.setenv("PATH", str(bindir))
    monkeypatch.setenv("FAKE_TF_LOG", str(log))
    monkeypatch.delenv("XCLI_TERRAFORM", raising=False)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    return log


def calls(log: Path) -> list[list[str]]:
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text().splitlines()]


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


SPOT = CASES["v6e-256-x2-spot"]
APPLY_SEQUENCE = [
    ["-chdir=deploy", "init", "-input=false"],
    ["-chdir=deploy", "plan", "-input=false", "-out=tfplan"],
    ["-chdir=deploy", "show", "tfplan"],
    ["-chdir=deploy", "apply", "-input=false", "tfplan"],
    ["-chdir=deploy", "output", "-json"],
]


def test_apply_with_yes_runs_init_plan_show_apply_output(
    fake_terraform: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = xcli(create_argv(SPOT, "--terraform", "deploy", "--apply", "--yes", "-o", "json"))
    out, err = capsys.readouterr()
    assert code == 0, err
    assert calls(fake_terraform) == APPLY_SEQUENCE
    assert "fake terraform apply: line 2" in err  # streamed
    summary = json.loads(out)
    outputs = {s["id"]: s["outputs"] for s in summary["steps"]}
    assert outputs["tf-output"] == {"cluster_name": "demo"}  # sensitive values left out
    assert "s3cret" not in out + err
    assert json.loads(Path("deploy/xcli.json").read_text())["cluster"] == "demo"
    assert Path("deploy/modules/tpu-node-pool/main.tf").is_file()


def test_apply_asks_and_stops_on_no(
    fake_terraform: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "stdin", Terminal("n\n"))
    assert xcli(create_argv(SPOT, "--terraform", "deploy", "--apply", "-o", "json")) == 1
    assert [c[1] for c in calls(fake_terraform)] == ["init", "plan", "show"]
    assert "Apply this plan to create cluster demo? [y/N]" in capsys.readouterr().err


def test_apply_asks_and_applies_on_yes(
    fake_terraform: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", Terminal("y\n"))
    assert xcli(create_argv(SPOT, "--terraform", "deploy", "--apply", "-o", "json")) == 0
    assert calls(fake_terraform) == APPLY_SEQUENCE


def test_apply_without_a_terminal_needs_yes_and_writes_nothing(
    fake_terraform: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert xcli(create_argv(SPOT, "--terraform", "deploy", "--apply")) == 1
    assert "pass --yes" in capsys.readouterr().err
    assert not Path("deploy").exists() and calls(fake_terraform) == []


def test_failed_apply_exits_1_and_names_the_command(
    fake_terraform: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("FAKE_TF_FAIL", "apply")
    assert xcli(create_argv(SPOT, "--terraform", "deploy", "--apply", "--yes")) == 1
    out, err = capsys.readouterr()
    assert "`terraform -chdir=deploy apply -input=false tfplan` failed with exit code 1" in err
    assert "Error: apply went wrong" in err
    assert [c[1] for c in calls(fake_terraform)] == ["init", "plan", "show", "apply"]
    assert "SKIPPED tf-output" in out


def test_without_a_binary_the_folder_is_written_and_the_commands_printed(
    fake_terraform: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PATH", str(fake_terraform.parent / "empty"))
    assert xcli(create_argv(SPOT, "--terraform", "deploy", "--apply", "-o", "json")) == 0
    out, err = capsys.readouterr()
    json.loads(out)  # stdout stays one JSON document; the advice goes to stderr
    assert "no terraform or tofu on PATH; to create the cluster, run:" in err
    assert "  terraform -chdir=deploy apply -input=false tfplan" in err
    assert "without --terraform" in err
    assert Path("deploy/main.tf").is_file()


def test_live_folder_equals_the_dry_run_folder(fake_terraform: Path) -> None:
    from tests.terraform.cases import folder_files

    assert xcli(create_argv(SPOT, "--terraform", "deploy", "--dry-run", "--out", "out")) == 0
    assert not Path("deploy").exists()
    assert xcli(create_argv(SPOT, "--terraform", "deploy")) == 0
    assert calls(fake_terraform) == []  # no --apply: nothing runs
    live = folder_files(Path("deploy"), with_modules=True)
    assert live == folder_files(Path("out/terraform"), with_modules=True)


def test_dry_run_with_apply_lists_the_commands_as_steps(
    fake_terraform: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PATH", str(fake_terraform.parent / "empty"))  # same output without one
    argv = create_argv(SPOT, "--terraform", "deploy", "--apply", "--dry-run", "-o", "json")
    assert xcli(argv) == 0
    plan = json.loads(capsys.readouterr().out)
    runs = [s for s in plan["plan"] if s["kind"] != "local" or s["action"] == "confirm"]
    assert [s["id"] for s in runs] == [
        "tf-init",
        "tf-plan",
        "tf-show",
        "confirm-apply",
        "tf-apply",
        "tf-output",
    ]
    commands = [shlex.split(s["command"]) for s in runs if s["kind"] == "terraform"]
    assert [c[1:] for c in commands] == APPLY_SEQUENCE and {c[0] for c in commands} == {"terraform"}
    assert runs[0]["after"] == [s["id"] for s in plan["plan"] if s.get("action") == "write_file"]
    assert calls(fake_terraform) == [] and not Path("deploy").exists()


def test_delete_destroys_from_the_folder(
    fake_terraform: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert xcli(create_argv(SPOT, "--terraform", "deploy")) == 0
    base = ["cluster", "delete", "--project", "my-proj", "--zone", "us-east5-b"]
    assert xcli([*base, "--cluster", "other", "--terraform", "deploy", "--yes"]) == 1
    assert "holds cluster demo, not other" in capsys.readouterr().err
    assert xcli([*base, "--cluster", "demo", "--terraform", "nowhere", "--yes"]) == 1
    assert "not an xcli Terraform folder" in capsys.readouterr().err
    assert calls(fake_terraform) == []
    assert xcli([*base, "--cluster", "demo", "--terraform", "deploy", "--yes"]) == 0
    assert calls(fake_terraform) == [
        ["-chdir=deploy", "init", "-input=false"],
        ["-chdir=deploy", "destroy", "-input=false", "-auto-approve"],
    ]


def test_delete_without_a_binary_says_what_to_run(
    fake_terraform: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert xcli(create_argv(SPOT, "--terraform", "deploy")) == 0
    monkeypatch.setenv("PATH", str(fake_terraform.parent / "empty"))
    argv = ["cluster", "delete", "--cluster", "demo", "--terraform", "deploy", "--yes"]
    assert xcli([*argv, "--project", "my-proj", "--zone", "us-east5-b"]) == 1
    err = capsys.readouterr().err
    assert "no terraform or tofu on PATH" in err
    assert "terraform -chdir=deploy destroy -input=false" in err
