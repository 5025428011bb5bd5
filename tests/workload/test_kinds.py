"""The kinds registry: the kind of workload each provider runs, and the gateways the CLI hands in.

The VM-style waits sleep through the run's timing (`main(argv, timing=...)`; by default
backoff.event_sleep), so a test steps the run's record forward from inside that sleep, and
Ctrl-C there ends the wait.
"""

from __future__ import annotations

import os
import threading

import pytest

from xcli.cli.deps import Dependencies
from xcli.cli.errors import run_guarded
from xcli.cli.main import cli
from xcli.errors import InternalError
from xcli.gateways import backoff
from xcli.gateways.backoff import Timing
from xcli.vm_runs import identity, read_state, run_dir, write_json
from xcli.workload.backends import KindGateways
from xcli.workload.jobset.kind import JobSetKind
from xcli.workload.jobset.live import Live
from xcli.workload.kinds import KINDS, all_states, build, entry, kind_name
from xcli.workload.protocol import Listing, Table
from xcli.workload.vm.kind import VmKind

# --timeout: a wait that ignored the injected sleep would end (124) instead of hanging
WAIT = ["workload", "wait", "w", "--cluster", "demo", "--provider", "local", "--timeout", "5s"]


def test_each_provider_names_its_kind_of_workload() -> None:
    from xcli.providers import DEFAULT

    live = Live(lambda ref: pytest.fail(f"nothing connects to {ref.name}"))
    caps = DEFAULT.capabilities("gke")
    assert kind_name(caps) == "jobset"
    gke = build("jobset", "gke", caps, KindGateways(live=live))
    assert isinstance(gke, JobSetKind) and gke.live is live
    jobset = entry("jobset")
    assert (jobset.needs_image, jobset.extra_restart_codes, jobset.previews_delete) == (
        True,
        True,
        True,
    )
    assert jobset.states == ("queued", "running", "succeeded", "failed")
    assert jobset.namespaces and jobset.manifests
    vm_entry = entry("vm")
    assert (vm_entry.needs_image, vm_entry.extra_restart_codes, vm_entry.previews_delete) == (
        False,
        False,
        False,
    )
    assert not vm_entry.namespaces and not vm_entry.manifests
    assert "lost" in vm_entry.states and "queued" not in vm_entry.states
    for provider in ("queued-resource", "local"):
        caps = DEFAULT.capabilities(provider)
        assert kind_name(caps) == "vm"
        vm = build("vm", provider, caps, KindGateways())
        assert isinstance(vm, VmKind) and vm.provider == provider and vm.capabilities == caps
        assert vm.sleep is backoff.event_sleep
    with pytest.raises(InternalError, match="without a way to reach clusters"):
        build("jobset", "gke", caps, KindGateways())
    assert set(all_states()) == {s for e in KINDS.values() for s in e.states}
    assert set(all_states()) == {*jobset.states, *vm_entry.states}


def test_an_unknown_kind_is_a_user_error() -> None:
    from xcli.errors import UserError

    with pytest.raises(UserError, match="no workload kind 'slurm'"):
        entry("slurm")


def _running_record() -> None:
    folder = run_dir("demo", "w")
    folder.mkdir(parents=True)
    # a live pid (this test's) stands for the driver, so the run counts as running, not lost
    # (with its start time: a pid alone may name a recycled process, issue 26)
    write_json(folder / "state.json", {"state": "running", **identity(os.getpid())})


def test_vm_wait_polls_through_the_injected_sleep(capsys: pytest.CaptureFixture[str]) -> None:
    _running_record()
    slept: list[float] = []

    def sleep(seconds: float, cancelled: threading.Event) -> None:
        slept.append(seconds)
        if len(slept) == 3:
            folder = run_dir("demo", "w")
            write_json(folder / "state.json", {**read_state(folder), "state": "succeeded"})

    code = run_guarded(cli, WAIT, debug=False, obj=Dependencies(timing=Timing(sleep=sleep)))
    assert code == 0
    assert slept == [0.1, 0.1, 0.1]
    assert capsys.readouterr().err.splitlines() == [
        "workload w: running",
        "workload w: succeeded",
    ]


def test_ctrl_c_in_a_vm_wait_says_the_workload_keeps_running(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _running_record()

    def ctrl_c(seconds: float, cancelled: threading.Event) -> None:
        raise KeyboardInterrupt

    code = run_guarded(cli, WAIT, debug=False, obj=Dependencies(timing=Timing(sleep=ctrl_c)))
    assert code == 130
    assert capsys.readouterr().err.splitlines() == [
        "workload w: running",
        "error: interrupted",
        "hint: wait again with `xcli workload wait w --cluster demo` (same --provider), or "
        "stop it with `xcli workload delete w --cluster demo`",
    ]


class EchoKind:
    """A third kind, as a new folder would hold one: it lists what it was built for."""

    def __init__(self, provider: str) -> None:
        self.provider = provider

    @classmethod
    def build(cls, provider: str, capabilities: object, gateways: KindGateways) -> EchoKind:
        return cls(provider)

    def list(self, ctx: object, cluster: str, state: str | None) -> Listing:
        record = {"name": f"echo-on-{cluster}", "provider": self.provider, "state": state}
        rows = ((record["name"], str(state)),)
        return Listing([record], Table(("NAME", "STATE"), rows), "none")


def test_a_third_kind_is_a_registry_line_and_a_capability(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """No command names a kind: a provider whose capabilities name a new kind runs it."""
    import json
    from dataclasses import replace

    from xcli.providers import DEFAULT, REGISTRY, Registry
    from xcli.workload.kinds import KindEntry

    echo = KindEntry(f"{__name__}:EchoKind.build", ("ringing",), True, True, True, True, True)
    monkeypatch.setitem(KINDS, "echo", echo)
    gke = REGISTRY["gke"]
    registry = Registry(
        {
            **REGISTRY,
            "gke": replace(gke, capabilities=replace(gke.capabilities, workloads=("echo",))),
        }
    )
    # the default is untouched
    assert DEFAULT.capabilities("gke").workloads == ("jobset", "pathways")
    argv = ["workload", "list", "--cluster", "demo", "--provider", "gke", "--state", "running"]
    argv += ["--project", "my-proj", "--zone", "us-east5-b", "-o", "json"]
    code = run_guarded(cli, argv, debug=False, obj=Dependencies(providers=registry))
    out, err = capsys.readouterr()
    assert code == 1 and "--state running does not occur on --provider gke" in err
    assert "states there: ringing" in err  # the new kind's own states
    argv[argv.index("running")] = "stopped"  # a state some kind has (the click choice)
    monkeypatch.setitem(KINDS, "echo", replace(echo, states=("stopped",)))
    code = run_guarded(cli, argv, debug=False, obj=Dependencies(providers=registry))
    out, err = capsys.readouterr()
    assert code == 0, err
    assert json.loads(out) == [{"name": "echo-on-demo", "provider": "gke", "state": "stopped"}]
