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
from xcli.workload.backends import KindGateways
from xcli.workload.jobset.kind import JobSetKind
from xcli.workload.jobset.live import Live
from xcli.workload.kinds import KINDS, all_states, build, entry, kind_name
from xcli.workload.vm.kind import VmKind
from xcli.workload.vm.runs import read_state, run_dir, write_json

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

    with pytest.raises(UserError, match="no workload kind 'pathways'"):
        entry("pathways")


def _running_record() -> None:
    folder = run_dir("demo", "w")
    folder.mkdir(parents=True)
    # a live pid (this test's) stands for the driver, so the run counts as running, not lost
    write_json(folder / "state.json", {"state": "running", "pid": os.getpid()})


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
