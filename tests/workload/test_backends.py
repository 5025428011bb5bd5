"""backend_for: the kind of workload each provider runs, and the gateways the CLI hands in.

The VM-style waits sleep through the injected sleep (backoff.event_sleep by default), so a
test steps the run's record forward from inside that sleep, and Ctrl-C there ends the wait.
"""

from __future__ import annotations

import os
import threading

import pytest

from xcli.cli.deps import Dependencies
from xcli.cli.errors import run_guarded
from xcli.cli.main import cli
from xcli.gateways import backoff
from xcli.workload.backends import WorkloadGateways, all_states, backend_for
from xcli.workload.jobset.backend import JobSetBackend
from xcli.workload.jobset.live import Live
from xcli.workload.vm.backend import VmBackend
from xcli.workload.vm.runs import identity, read_state, run_dir, write_json

# --timeout: a wait that ignored the injected sleep would end (124) instead of hanging
WAIT = ["workload", "wait", "w", "--cluster", "demo", "--provider", "local", "--timeout", "5s"]


def test_each_provider_names_its_kind_of_workload() -> None:
    from xcli.providers import DEFAULT

    live = Live()
    gke = backend_for("gke", DEFAULT.capabilities("gke").vm_workloads, WorkloadGateways(live=live))
    assert isinstance(gke, JobSetBackend) and gke.live is live
    assert (gke.needs_image, gke.extra_restart_codes, gke.previews_delete) == (True, True, True)
    assert gke.states == ("queued", "running", "succeeded", "failed")
    for provider in ("queued-resource", "local"):
        vm = backend_for(provider, DEFAULT.capabilities(provider).vm_workloads)
        assert isinstance(vm, VmBackend) and vm.provider == provider
        assert (vm.needs_image, vm.extra_restart_codes, vm.previews_delete) == (
            False,
            False,
            False,
        )
        assert vm.sleep is backoff.event_sleep
        assert "lost" in vm.states and "queued" not in vm.states
    assert set(all_states()) == {*gke.states, *backend_for("local", True).states}


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

    code = run_guarded(
        cli, WAIT, debug=False, obj=Dependencies(workload_gateways=WorkloadGateways(sleep=sleep))
    )
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

    code = run_guarded(
        cli, WAIT, debug=False, obj=Dependencies(workload_gateways=WorkloadGateways(sleep=ctrl_c))
    )
    assert code == 130
    assert capsys.readouterr().err.splitlines() == [
        "workload w: running",
        "error: interrupted",
        "hint: wait again with `xcli workload wait w --cluster demo` (same --provider), or "
        "stop it with `xcli workload delete w --cluster demo`",
    ]
