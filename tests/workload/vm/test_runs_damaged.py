"""A damaged workload record never stops `cluster delete` (issue 26 item 9): the records of a
cluster's workloads are read when it is deleted (which still run, then each marked as ended);
one that is not a JSON object, or holds a pid that is not a number, counts as not running."""

from __future__ import annotations

import json

import pytest

from xcli import vm_runs as runs

DAMAGED = ["[]", '"text"', "{not json", '{"state": "running", "pid": "abc"}',
           '{"state": "running", "pid": [1]}', '{"state": "running", "pid": {"a": 1}}']  # fmt: skip


@pytest.mark.parametrize("text", DAMAGED)
def test_damaged_record_does_not_stop_a_cluster_delete(text: str) -> None:
    folder = runs.run_dir("demo", "broken")
    folder.mkdir(parents=True)
    (folder / "state.json").write_text(text)
    assert runs.running_on("demo", "local") == []
    assert runs.end_with_cluster("demo", "local") == ["broken"]
    assert json.loads((folder / "state.json").read_text())["cluster_deleted"]
    assert runs.forget_ended_with_cluster("demo", "local") == ["broken"]
    assert not folder.exists()
