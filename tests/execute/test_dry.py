"""The dry-run prints the same bytes every time and writes a deployment folder on request."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

from tests.plan.test_model import sample_plan
from xcli.execute.dry import DryRunExecutor

RENDER = """
import sys
from tests.plan.test_model import sample_plan
from xcli.execute.dry import DryRunExecutor
DryRunExecutor(sys.stdout, sys.argv[1]).run(sample_plan())
"""


def render_in_fresh_process(fmt: str, seed: str) -> bytes:
    env = {**os.environ, "PYTHONHASHSEED": seed}
    root = Path(__file__).resolve().parents[2]
    proc = subprocess.run(
        [sys.executable, "-c", RENDER, fmt], capture_output=True, env=env, cwd=root, check=True
    )
    return proc.stdout


def test_identical_bytes_across_processes_and_hash_seeds() -> None:
    for fmt in ("text", "json"):
        first = render_in_fresh_process(fmt, "1")
        assert first == render_in_fresh_process(fmt, "4242")
        assert len(first) > 200


def test_plan_statuses_are_planned_and_nothing_runs() -> None:
    out = io.StringIO()
    result = DryRunExecutor(out, "json").run(sample_plan())
    assert {r.status for r in result.results.values()} == {"planned"}
    assert json.loads(out.getvalue())["plan"][0]["id"] == "cluster"


def test_deployment_folder(tmp_path: Path) -> None:
    out = io.StringIO()
    DryRunExecutor(out, "text", folder=tmp_path / "deploy").run(sample_plan())
    files = sorted(
        p.relative_to(tmp_path / "deploy").as_posix()
        for p in (tmp_path / "deploy").rglob("*")
        if p.is_file()
    )
    assert files == ["manifests/queue.yaml", "plan.json"]
    doc = json.loads((tmp_path / "deploy" / "plan.json").read_text())
    assert [s["id"] for s in doc["plan"]] == ["cluster", "cluster-ready", "queue", "hello"]
    assert "kind: ConfigMap" in (tmp_path / "deploy" / "manifests" / "queue.yaml").read_text()
