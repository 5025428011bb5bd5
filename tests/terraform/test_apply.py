"""--apply and delete run a real process: a stand-in `terraform` script on PATH that records
its arguments, prints lines, and fails when told to. After apply, the same setup as the API
path runs against fakes handed to the CLI's entry point as
Dependencies(terraform_connections=...) (tests/support/tf_after_apply: clusters.get, the
cluster's Kubernetes API, the TPU API). Nothing here reaches any outside host."""

from __future__ import annotations

import io
import json
import shlex
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pytest

from tests.support.tf_after_apply import CA, ENDPOINT, HOST_KEY, Clouds, clouds, release
from tests.terraform.cases import CASES, create_argv
from xcli.cli.deps import Dependencies
from xcli.cli.errors import run_guarded
from xcli.cli.main import cli
from xcli.gateways.kube.handlers import parse_manifest, set_limits
from xcli.gateways.kube.release_config import patch_config
from xcli.plan.render import step_document
from xcli.providers.gke.bodies import setup_steps
from xcli.providers.queued_resource.access import recall_access

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
def cloud() -> Iterator[Clouds]:
    """What terraform apply made (cluster demo, regional, in us-east5), controllers running."""
    with clouds() as made:
        made.add_cluster("my-proj", "us-east5", "demo")
        made.controllers_ready()
        yield made


Run = Callable[[Sequence[str]], int]


@pytest.fixture
def xcli(cloud: Clouds) -> Run:
    """The CLI, its post-apply steps reaching the fake clouds (handed in, not installed)."""
    deps = Dependencies(terraform_connections=cloud.connections)
    return lambda argv: run_guarded(cli, list(argv), debug=False, obj=deps)


@pytest.fixture
def fake_terraform(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cloud: Clouds) -> Path:
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
CLUSTER = "projects/my-proj/locations/us-east5/clusters/demo"  # regional, as the module makes it
APPLY_SEQUENCE = [
    ["-chdir=deploy", "init", "-input=false"],
    ["-chdir=deploy", "plan", "-input=false", "-out=tfplan"],
    ["-chdir=deploy", "show", "tfplan"],
    ["-chdir=deploy", "apply", "-input=false", "tfplan"],
    ["-chdir=deploy", "output", "-json"],
]


def test_apply_with_yes_runs_init_plan_show_apply_output(
    fake_terraform: Path,
    capsys: pytest.CaptureFixture[str],
    xcli: Run,
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


def test_after_apply_the_cluster_gets_the_setup_the_dry_run_printed(
    fake_terraform: Path,
    cloud: Clouds,
    capsys: pytest.CaptureFixture[str],
    xcli: Run,
) -> None:
    dry = create_argv(SPOT, "--terraform", "deploy", "--apply", "--yes", "--dry-run", "-o", "json")
    assert xcli(dry) == 0
    printed = json.loads(capsys.readouterr().out)["plan"]
    assert cloud.kube.requests == [] and cloud.gke.requests == []  # the dry-run asks nothing

    code = xcli(create_argv(SPOT, "--terraform", "deploy", "--apply", "--yes", "-o", "json"))
    out, err = capsys.readouterr()
    assert code == 0, err
    assert calls(fake_terraform) == APPLY_SEQUENCE
    # the cluster's API, found through clusters.get of the regional cluster Terraform made
    assert [(m, p.split("?")[0]) for m, p, _ in cloud.gke.requests] == [("GET", "/v1/" + CLUSTER)]
    assert cloud.connected == [(ENDPOINT, CA)]
    # every object applied: the two releases' objects (the pinned URLs, limits set as the
    # dry-run printed them) and exactly the dry-run's manifests, nothing else
    installs = [s for s in printed if s["kind"] == "k8s_install"]
    assert sorted(cloud.fetched) == sorted(s["url"] for s in installs)
    released = []
    for step in installs:
        objects = parse_manifest(release(step["url"]), step["url"])
        set_limits(objects, step["limits"], step["url"])
        if "config_patch" in step:  # Kueue: fair sharing on in its Configuration
            patch_config(objects, step["config_patch"], step["url"])
        released += objects
    # the cluster queue's chips: what the cohort read found (no team here: all of them)
    outputs = {s["id"]: s["outputs"] for s in json.loads(out)["steps"]}
    assert outputs["k8s-cohort-read"] == {"chips": SPOT.spec().total_chips, "teams": {}}
    chips = str(outputs["k8s-cohort-read"]["chips"])
    manifests = [
        json.loads(json.dumps(s["manifest"]).replace('"${k8s-cohort-read.chips}"', chips))
        for s in printed
        if s["kind"] == "k8s_apply"
    ]
    assert len(manifests) == 10  # with the Kueue Topology of TPU slices
    assert sorted(map(canon, cloud.applied())) == sorted(map(canon, [*manifests, *released]))
    assert cloud.applied()[-1]["kind"] == "ConfigMap"  # the metadata, last
    summary = {s["id"]: s["status"] for s in json.loads(out)["steps"]}
    assert summary["k8s-metadata"] == "ok" and set(summary.values()) == {"ok"}
    assert "with --apply once terraform" not in err  # the note is gone where it is done


def canon(obj: object) -> str:
    return json.dumps(obj, sort_keys=True)


def test_apply_asks_and_stops_on_no(
    fake_terraform: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    xcli: Run,
) -> None:
    monkeypatch.setattr(sys, "stdin", Terminal("n\n"))
    assert xcli(create_argv(SPOT, "--terraform", "deploy", "--apply", "-o", "json")) == 1
    assert [c[1] for c in calls(fake_terraform)] == ["init", "plan", "show"]
    assert "Apply this plan to create cluster demo? [y/N]" in capsys.readouterr().err


def test_apply_asks_and_applies_on_yes(
    fake_terraform: Path,
    monkeypatch: pytest.MonkeyPatch,
    xcli: Run,
) -> None:
    monkeypatch.setattr(sys, "stdin", Terminal("y\n"))
    assert xcli(create_argv(SPOT, "--terraform", "deploy", "--apply", "-o", "json")) == 0
    assert calls(fake_terraform) == APPLY_SEQUENCE


def test_apply_without_a_terminal_needs_yes_and_writes_nothing(
    fake_terraform: Path,
    capsys: pytest.CaptureFixture[str],
    xcli: Run,
) -> None:
    assert xcli(create_argv(SPOT, "--terraform", "deploy", "--apply")) == 1
    assert "pass --yes" in capsys.readouterr().err
    assert not Path("deploy").exists() and calls(fake_terraform) == []


def test_failed_apply_exits_1_and_names_the_command(
    fake_terraform: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    xcli: Run,
) -> None:
    monkeypatch.setenv("FAKE_TF_FAIL", "apply")
    assert xcli(create_argv(SPOT, "--terraform", "deploy", "--apply", "--yes")) == 1
    out, err = capsys.readouterr()
    assert "`terraform -chdir=deploy apply -input=false tfplan` failed with exit code 1" in err
    assert "Error: apply went wrong" in err
    assert [c[1] for c in calls(fake_terraform)] == ["init", "plan", "show", "apply"]
    assert "SKIPPED tf-output" in out


def test_without_a_binary_the_folder_is_written_and_the_commands_printed(
    fake_terraform: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    xcli: Run,
) -> None:
    monkeypatch.setenv("PATH", str(fake_terraform.parent / "empty"))
    assert xcli(create_argv(SPOT, "--terraform", "deploy", "--apply", "-o", "json")) == 0
    out, err = capsys.readouterr()
    json.loads(out)  # stdout stays one JSON document; the advice goes to stderr
    assert "no terraform or tofu on PATH; to create the cluster, run:" in err
    assert "  terraform -chdir=deploy apply -input=false tfplan" in err
    assert "run this same command with --apply" in err
    assert Path("deploy/main.tf").is_file()


def test_live_folder_equals_the_dry_run_folder(fake_terraform: Path, xcli: Run) -> None:
    from tests.terraform.cases import folder_files

    assert xcli(create_argv(SPOT, "--terraform", "deploy", "--dry-run", "--out", "out")) == 0
    assert not Path("deploy").exists()
    assert xcli(create_argv(SPOT, "--terraform", "deploy")) == 0
    assert calls(fake_terraform) == []  # no --apply: nothing runs
    live = folder_files(Path("deploy"), with_modules=True)
    assert live == folder_files(Path("out/terraform"), with_modules=True)


def test_dry_run_with_apply_lists_the_commands_as_steps(
    fake_terraform: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    xcli: Run,
) -> None:
    monkeypatch.setenv("PATH", str(fake_terraform.parent / "empty"))  # same output without one
    argv = create_argv(SPOT, "--terraform", "deploy", "--apply", "--dry-run", "-o", "json")
    assert xcli(argv) == 0
    plan = json.loads(capsys.readouterr().out)
    runs = [s for s in plan["plan"] if s["kind"] in ("terraform", "local")]
    runs = [s for s in runs if s["kind"] == "terraform" or s["action"] == "confirm"]
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
    # then the API path's in-cluster setup, against the cluster Terraform made
    setup = setup_steps(SPOT.spec(), CLUSTER, ("tf-output",))
    assert len(setup) == 14
    tail = plan["plan"][len(plan["plan"]) - len(setup) :]
    assert tail == json.loads(json.dumps([step_document(s) for s in setup]))
    assert "with --apply once terraform" not in json.dumps(plan["notes"])  # done here now


def test_delete_destroys_from_the_folder(
    fake_terraform: Path,
    capsys: pytest.CaptureFixture[str],
    xcli: Run,
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
    fake_terraform: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    xcli: Run,
) -> None:
    assert xcli(create_argv(SPOT, "--terraform", "deploy")) == 0
    monkeypatch.setenv("PATH", str(fake_terraform.parent / "empty"))
    argv = ["cluster", "delete", "--cluster", "demo", "--terraform", "deploy", "--yes"]
    assert xcli([*argv, "--project", "my-proj", "--zone", "us-east5-b"]) == 1
    err = capsys.readouterr().err
    assert "no terraform or tofu on PATH" in err
    assert "terraform -chdir=deploy destroy -input=false" in err


def test_after_apply_queued_resources_get_ssh_access_like_the_api_path(
    fake_terraform: Path,
    cloud: Clouds,
    isolated_home: Path,
    capsys: pytest.CaptureFixture[str],
    xcli: Run,
) -> None:
    """One queued resource per slice (demo-0, demo-1): xcli waits for each to be ACTIVE, adds
    its key to each node's metadata (keeping the keys there) and pins every worker's host key."""
    flags = ["--provider", "queued-resource", "--tpu-type", "v5litepod-16", "--num-slices", "2"]
    place = ["--project", "my-proj", "--zone", "us-east5-b", "--on-demand"]
    argv = ["cluster", "create", "--cluster", "demo", *flags, *place, "--terraform", "deploy"]
    parent = "projects/my-proj/locations/us-east5-b"
    for name in ("demo-0", "demo-1"):
        cloud.tpu.add(parent, name, workers=4)
    assert xcli([*argv, "--apply", "--yes", "--dry-run", "-o", "json"]) == 0
    printed = json.loads(capsys.readouterr().out)["plan"]
    ids = [s["id"] for s in printed if s["kind"] not in ("local", "terraform")]
    assert ids == [
        "os-login-check",
        "wait-active-demo-0",
        "wait-active-demo-1",
        "ssh-access-demo-0",
        "ssh-access-demo-1",
    ]

    code = xcli([*argv, "--apply", "--yes", "-o", "json"])
    err = capsys.readouterr().err
    assert code == 0, err
    assert [c[1] for c in calls(fake_terraform)] == ["init", "plan", "show", "apply", "output"]
    key = (isolated_home / ".ssh" / "xcli_ed25519.pub").read_text().strip()
    patches = [(r, b) for m, r, b in cloud.tpu.requests if m == "PATCH"]
    assert sorted(r for r, _ in patches) == ["nodes/demo-0", "nodes/demo-1"]  # in parallel
    for _, body in patches:
        assert body["metadata"]["ssh-keys"].splitlines() == [
            "bob:ssh-rsa AAAAB3OTHER bob",
            f"xcli:{key}",
        ]
    polled = {r for m, r, _ in cloud.tpu.requests if r.startswith("queuedResources/")}
    assert polled == {"queuedResources/demo-0", "queuedResources/demo-1"}
    # each metadata update was waited for; the project was checked for OS Login first
    operations = {r for m, r, _ in cloud.tpu.requests if r.startswith("operations/")}
    assert operations == {"operations/patch-demo-0", "operations/patch-demo-1"}
    assert cloud.projects_read == ["my-proj"]
    known = (isolated_home / "state" / "known_hosts").read_text().splitlines()
    assert len(known) == 8 and all(f"ssh-ed25519 {HOST_KEY} xcli:" in line for line in known)
    # recorded per queued resource, as `xcli cluster wait` would: `xcli ssh --cluster demo-1`
    assert any(line.endswith("xcli:my-proj/us-east5-b/demo-1/demo-1/w3") for line in known)
    for name in ("demo-0", "demo-1"):
        assert recall_access("my-proj", "us-east5-b", name)["user"] == "xcli"


def test_without_apply_the_notes_say_how_to_finish_queued_resources(
    fake_terraform: Path,
    capsys: pytest.CaptureFixture[str],
    xcli: Run,
) -> None:
    case = CASES["v6e-256-x2-queued-resource"]
    assert xcli(create_argv(case, "--terraform", "deploy")) == 0
    out = capsys.readouterr().out  # text output: the notes follow the run on stdout
    assert "after terraform apply, add the SSH key and pin the host keys with:" in out
    for name in ("demo-0", "demo-1"):
        wait = f"xcli cluster wait --provider queued-resource --cluster {name}"
        assert f"  {wait} --project my-proj --zone us-east5-b" in out
    assert calls(fake_terraform) == []
