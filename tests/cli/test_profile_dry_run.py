"""`xcli workload profile|stacks --dry-run` need no credentials (docs/dry-run.md): the test
environment has none (tests/conftest.py isolates HOME and gcloud's folder), and the real
providers are used, so a read of the cluster or of the Cloud TPU API would stop the run with
`error: no Google credentials found`. The plans start with the read a live run makes to find
the hosts (GKE: `read_first` of the JobSet's pods; queued resources: `hosts_read`), then the
capture or dump with what that read fills in as refs. The plans are goldens, JSON and one text
form (`--update-goldens` rewrites them); the temporary home is written $HOME.
"""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path

import pytest
import responses

from tests.app.test_ssh_use_case import World
from xcli import vm_runs
from xcli.cli.errors import run_guarded
from xcli.cli.main import cli

GOLDENS = Path(__file__).parents[1] / "goldens" / "profile"
GKE = ["--cluster", "demo", "--project", "my-proj", "--zone", "us-east5-b"]
QR = ["--cluster", "qr", "--provider", "queued-resource", "--project", "my-proj",
      "--zone", "us-east5-b"]  # fmt: skip
GKE_PROFILE = ["profile", "train", *GKE, "--log-dir", "gs://b/prof", "--session", "s"]


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = run_guarded(cli, argv, debug=False)
    out, err = capsys.readouterr()
    return code, out, err


def _golden(name: str, out: str, home: Path, update: bool) -> None:
    text = out.replace(str(home), "$HOME")
    path = GOLDENS / f"{name}.json"
    if update:
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8"), f"{path.name} changed"


def _running_on_qr() -> None:
    """The record `workload create` keeps of a VM workload on 2 slices x 2 workers, its driver
    this test's own process (alive, so the workload counts as running)."""
    folder = vm_runs.run_dir("qr", "train")
    folder.mkdir(parents=True)
    state = {"state": "running", "provider": "queued-resource", **vm_runs.identity(os.getpid())}
    vm_runs.write_json(folder / "state.json", state)
    labels = [f"s{s}/w{w}" for s in range(2) for w in range(2)]
    vm_runs.write_json(folder / "run.json", {"targets": [{"label": x} for x in labels]})


@pytest.mark.parametrize(
    ("name", "argv"),
    [
        ("gke-profile", GKE_PROFILE),
        ("gke-profile-hosts", [*GKE_PROFILE, "--hosts", "s1/w0,s0/w2"]),
        ("gke-stacks", ["stacks", "train", *GKE]),
        ("qr-profile", ["profile", "train", *QR, "--session", "s", "--hosts", "s1/w0,s0/w1"]),
        ("qr-stacks", ["stacks", "train", *QR]),
    ],
)
def test_dry_run_needs_no_credentials(
    name: str,
    argv: list[str],
    capsys: pytest.CaptureFixture[str],
    isolated_home: Path,
    update_goldens: bool,
) -> None:
    assert "GOOGLE_APPLICATION_CREDENTIALS" not in os.environ
    if name.startswith("qr"):
        _running_on_qr()
    code, out, err = _run(["workload", *argv, "--dry-run", "-o", "json"], capsys)
    assert "no Google credentials" not in err
    assert code == 0, err
    plan = json.loads(out)["plan"]
    read, step = plan
    assert step["after"] == [read["id"]]
    if name.startswith("gke"):
        assert (read["kind"], read["object_kind"], read["namespace"]) == (
            "read_first", "Pod", "default"
        )  # fmt: skip
        assert read["labels"] == {"jobset.sigs.k8s.io/jobset-name": "train"}
    else:
        assert read["kind"] == "hosts_read"
        assert read["requests"][0]["url"] == (
            "https://tpu.googleapis.com/v2/projects/my-proj/locations/us-east5-b/queuedResources/qr"
        )
    _golden(name, out, isolated_home, update_goldens)


def test_the_text_form_says_what_is_read_at_run_time(
    capsys: pytest.CaptureFixture[str], isolated_home: Path, update_goldens: bool
) -> None:
    code, out, err = _run(["workload", *GKE_PROFILE, "--dry-run"], capsys)
    assert code == 0, err
    text = out.replace(str(isolated_home), "$HOME")
    path = GOLDENS / "gke-profile.txt"
    if update_goldens:
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8"), f"{path.name} changed"
    assert "note: dry-run: the pods are read when the capture runs" in out
    assert "1. [pods] find the running pods of JobSet train (read by the live run first" in out
    assert "hosts: ${pods.hosts}" in out


def test_qr_stacks_name_each_worker_by_its_ref(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _running_on_qr()
    code, out, err = _run(["workload", "stacks", "train", *QR, "--dry-run", "-o", "json"], capsys)
    assert code == 0, err
    _, step = json.loads(out)["plan"]
    hosts = [(w["worker"], w["host"]) for w in step["workers"]]
    assert hosts == [(f"s{s}/w{w}", f"${{workers.s{s}/w{w}}}") for s in range(2) for w in range(2)]
    for w in step["workers"]:  # the login, too, is what the read fills in
        assert w["argv"][w["argv"].index("-l") + 1] == "${workers.user}"
        assert w["argv"][w["argv"].index("--") + 1] == w["host"]


def test_hosts_not_in_the_record_are_refused_before_anything(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _running_on_qr()
    argv = ["workload", "profile", "train", *QR, "--hosts", "s5/w0", "--dry-run"]
    code, _, err = _run(argv, capsys)
    assert code == 1 and "error: --hosts s5/w0 is not a host of this workload" in err


@responses.activate
def test_the_live_run_reads_what_the_dry_run_prints_on_a_queued_resource(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Live (LIVE), `vm_workers` sends the Cloud TPU API the reads the dry-run's `workers`
    step names, the node's name in place of `${each node}`, and labels its workers sS/wW."""
    from xcli.app.record import DRY, LIVE
    from xcli.app.workload_profile import vm_workers, workers_read
    from xcli.plan.cluster import ClusterRef
    from xcli.providers import DEFAULT
    from xcli.providers.queued_resource import access as tpu_access

    token_uri = "https://oauth2.googleapis.com/token"
    adc = tmp_path / "adc.json"
    adc.write_text(json.dumps({"type": "authorized_user", "client_id": "id",
                               "client_secret": "secret", "refresh_token": "refresh",
                               "token_uri": token_uri}))  # fmt: skip
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(adc))
    responses.post(token_uri, json={"access_token": "ya29.t", "expires_in": 3600})
    base = "https://tpu.googleapis.com/v2/projects/my-proj/locations/us-east5-b"
    parent = "projects/my-proj/locations/us-east5-b"
    specs = [{"parent": parent, "nodeId": f"qr-{i}", "node": {}} for i in range(2)]
    qr = {"name": f"{parent}/queuedResources/qr", "tpu": {"nodeSpec": specs},
          "state": {"state": "ACTIVE"}}  # fmt: skip
    responses.get(f"{base}/queuedResources/qr", json=qr)
    for i in range(2):
        ends = [{"ipAddress": f"10.0.{i}.{w}"} for w in range(2)]
        responses.get(f"{base}/nodes/qr-{i}", json={"name": f"{parent}/nodes/qr-{i}",
                                                    "networkEndpoints": ends})  # fmt: skip
    tpu_access.ensure_key(tpu_access.key_path("~/.ssh/xcli_ed25519"), create=True)
    registry = DEFAULT
    vm = registry.vm_access("queued-resource", registry.get("queued-resource"))
    ref = ClusterRef("qr", "my-proj", "us-east5-b", "queued-resource")
    deps = replace(World().deps(Path("logs")), registry=registry, record=DRY)
    assert vm_workers(deps, vm, ref, "queued-resource") is None  # a dry-run: nothing sent
    assert [c.request.url for c in responses.calls] == []
    found = vm_workers(replace(deps, record=LIVE), vm, ref, "queued-resource")
    assert found is not None
    assert [(w.label, w.host) for w in found] == [
        (f"s{s}/w{w}", f"10.0.{s}.{w}") for s in range(2) for w in range(2)
    ]
    # the REST transport's own `$alt=json;enum-encoding=int` left out, as every plan leaves it
    sent = [
        str(c.request.url).split("?")[0]
        for c in responses.calls
        if "tpu.googleapis.com" in str(c.request.url)
    ]
    printed = workers_read(ref, "train").requests
    queued, node = printed[0]["url"], printed[1]["url"]
    assert sent == [queued, *(node.replace("${each node}", f"qr-{i}") for i in range(2))]
