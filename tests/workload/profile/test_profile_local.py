"""`xcli workload profile` end to end on the local emulator: 4 workers of real CPU JAX, each a
jitted loop with its profiler server on its own XCLI_PROFILER_PORT; the capture goes through SSH
port forwards to every worker at once, and the test reads each host's step events with XProf's
own converter. Then one worker stops its server: the other three are captured, that one named.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.gateways.local_support import create, delete, needs_openssh, xcli

BASE = ("--provider", "local", "--cluster", "prof")
LABELS = [f"s0/w{w}" for w in range(4)]
# Every step is a StepTraceAnnotation("train"); worker 3 stops its server when told (a file).
PROGRAM = """\
import os, time
import jax, jax.numpy as jnp
import xcli.goodput as goodput

port = goodput.profiler_port()
jax.profiler.start_server(port)
step = jax.jit(lambda x: jnp.tanh(x @ x) / 8.0)
x = jnp.ones((128, 128))
stopped = False
for i in range(1_000_000):
    with jax.profiler.StepTraceAnnotation("train", step_num=i):
        x = step(x).block_until_ready()
    if i == 3:
        open("ready", "w").write(str(port))
    if not stopped and os.path.exists("stop-server"):
        jax.profiler.stop_server()
        stopped = True
        open("stopped", "w").write("")
    time.sleep(0.005)
"""


def _needs(module: str) -> None:
    probe = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip(f"{module} is not installed for the python running the tests")


def _wait_for(paths: list[Path], seconds: float = 90) -> None:
    deadline = time.monotonic() + seconds
    while not all(p.exists() for p in paths):
        assert time.monotonic() < deadline, [str(p) for p in paths if not p.exists()]
        time.sleep(0.2)


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    needs_openssh()
    _needs("jax")
    _needs("xprof")
    home = tmp_path_factory.mktemp("profile")
    create(home, "prof", "v5litepod-16")
    try:
        src = home / "loop.py"
        src.write_text(PROGRAM)
        xcli(home, "scp", *BASE, "--worker=all", str(src), ":~/")
        xcli(home, "workload", "create", *BASE, "--workload", "train",
             "--command", "python3 loop.py", "--detach")  # fmt: skip
        workers = home / "state" / "local" / "prof" / "workers"
        _wait_for([workers / f"s0-w{w}" / "ready" for w in range(4)])
        yield home
    finally:
        xcli(home, "workload", "delete", "train", *BASE, "--yes", check=False)
        delete(home, "prof", check=False)


def _step_events(path: Path) -> list[int]:
    """The step numbers of one host's `train` step events (`train N`, args.step_num), read with
    XProf's converter (its trace viewer's events)."""
    from xprof.convert import raw_to_tool_data

    data, _ = raw_to_tool_data.xspace_to_tool_data([str(path)], "trace_viewer", {})
    text = data.decode() if isinstance(data, bytes) else str(data)
    events = json.loads(text).get("traceEvents", [])
    return sorted(
        int(e["args"]["step_num"])
        for e in events
        if str(e.get("name", "")).startswith("train ") and "step_num" in (e.get("args") or {})
    )


def test_every_host_at_once_then_one_server_stopped(home: Path, tmp_path: Path) -> None:
    logs = tmp_path / "profiles"
    run = xcli(home, "workload", "profile", "train", *BASE, "--duration", "1s",
               "--log-dir", str(logs), "--session", "all4", "-o", "json")  # fmt: skip
    result = json.loads(run.stdout)
    folder = logs / "plugins" / "profile" / "all4"
    assert result["session_dir"] == str(folder) and result["missing"] == {}, run.stderr
    assert sorted(result["files"]) == LABELS
    assert sorted(p.name for p in folder.iterdir()) == [f"s0-w{w}.xplane.pb" for w in range(4)]
    steps = {label: _step_events(Path(path)) for label, path in result["files"].items()}
    # every host traced its own run of consecutive steps in the same second
    for label, nums in steps.items():
        assert len(nums) >= 5 and nums == list(range(nums[0], nums[0] + len(nums))), label
    assert result["open"] == f"xprof --logdir={logs} --port=8791"

    worker3 = home / "state" / "local" / "prof" / "workers" / "s0-w3"
    (worker3 / "stop-server").write_text("")
    _wait_for([worker3 / "stopped"], 30)
    run = xcli(home, "workload", "profile", "train", *BASE, "--duration", "500ms",
               "--log-dir", str(logs), "--session", "three", check=False)  # fmt: skip
    assert run.returncode == 1, run.stderr
    files = sorted(p.name for p in (logs / "plugins" / "profile" / "three").iterdir())
    assert files == [f"s0-w{w}.xplane.pb" for w in range(3)]
    assert "s0/w3  NOT CAPTURED: no profiler server on port" in run.stderr
    assert "3 of 4 hosts captured" in run.stderr


def test_dry_run_prints_the_hosts_ports_and_the_trace_call(home: Path) -> None:
    run = xcli(home, "workload", "profile", "train", *BASE, "--hosts", "s0/w1,s0/w2",
               "--session", "s", "--dry-run", "-o", "json")  # fmt: skip
    (step,) = json.loads(run.stdout)["plan"]
    ports = json.loads((home / "state" / "local" / "prof" / "state.json").read_text())["ports"]
    assert [h["profiler"] for h in step["hosts"]] == [
        f"127.0.0.1:{ports['profiler'][1]}",
        f"127.0.0.1:{ports['profiler'][2]}",
    ]
    assert step["trace"]["options"]["override_hostnames"] == "s0-w1,s0-w2"
    assert step["session_dir"] == "profiles/train/plugins/profile/s"
    assert not Path("profiles").exists()  # the dry-run wrote nothing
