"""`workload delete` asks on a terminal: a real process on a pseudo-terminal answers y or n.

The child process hands the in-memory cluster (through the provider registry's ClusterAccess) to
the entry point itself (run_guarded(obj=...)) and
prints the write requests it saw as JSON on its last line.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO

CHILD = """
import json, sys
from tests.support.workload_cluster import FakeClock, NOW, WHERE, set_up, add_jobset, cond
from tests.support.cluster_access import registry_over
from tests.support.fakekube import FakeKube
from xcli.cli.errors import run_guarded
from xcli.cli.deps import Dependencies
from xcli.cli.main import cli
from xcli.gateways.backoff import Timing

fake = FakeKube()
set_up(fake)
done = [cond("Completed", "True", "AllJobsCompleted", "done", "2026-11-22T11:30:00Z")]
add_jobset(fake, "v5litepod-16-x1", "old", done)
clock = FakeClock()
registry, _ = registry_over(fake)
timing = Timing(sleep=clock.sleep, clock=clock.monotonic, now=lambda: NOW)
deps = Dependencies(providers=registry, timing=timing)
code = run_guarded(cli, ["workload", "delete", "old", *WHERE], debug=False, obj=deps)
writes = [[r.method, r.url.path] for r in fake.requests if r.method != "GET"]
print()
print(json.dumps({"code": code, "writes": writes}))
"""


@pytest.mark.parametrize(("answer", "deleted"), [(b"y\n", True), (b"n\n", False)])
def test_delete_asks_on_a_terminal(answer: bytes, deleted: bool, isolated_home: Path) -> None:
    main, child = os.openpty()
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD],
        stdin=child,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=REPO,
        env=env,
    )
    os.close(child)
    os.write(main, answer)
    out, err = proc.communicate(timeout=120)
    os.close(main)
    assert proc.returncode == 0, err.decode()
    text = out.decode()
    assert "Delete workload old (succeeded) on cluster demo? [y/N]" in text
    result = json.loads(text.splitlines()[-1])
    if deleted:
        assert result["code"] == 0
        assert result["writes"] == [
            ["DELETE", "/apis/jobset.x-k8s.io/v1alpha2/namespaces/default/jobsets/old"]
        ]
    else:
        assert result["code"] == 1 and result["writes"] == []
        assert "aborted" in err.decode() and "nothing was changed" in err.decode()
