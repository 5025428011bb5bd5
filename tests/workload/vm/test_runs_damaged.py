"""A damaged workload record never stops `cluster delete` (issue 26 item 9): the records of a
cluster's workloads are read when it is deleted (which still run, then each marked as ended);
one that is not a JSON object, or holds a pid that is not a number, counts as not running."""

from __future__ import annotations

import json

import pytest

from xcli import vm_runs as runs

DAMAGED = ["[]", '"text"', "{not json", '{"state": "running", "pid": "abc"}',
           '{"state": "running", "pid": [1]}', '{"state": "running", "pid": {"a": 1}}',
           # issue 37: a pid past a C long (OverflowError, exit 3), and the process groups
           # kill(2) reads into 0 and -1 (-1: every process of the user)
           '{"state": "running", "pid": 100000000000000000000000000000, "pid_start": 1}',
           '{"state": "running", "pid": -1, "pid_start": 1}',
           '{"state": "running", "pid": 0, "pid_start": 1}']  # fmt: skip


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


@pytest.mark.parametrize("text", ['{"state": "running"', "[]", '{"stop": "x"}', "\udcff"])
def test_a_garbled_run_json_is_one_error_naming_it(text: str) -> None:
    from xcli.errors import UserError
    from xcli.gateways.workload_driver import stop

    folder = runs.run_dir("demo", "garbled")
    folder.mkdir(parents=True)
    (folder / "state.json").write_text('{"state": "running"}')
    (folder / "run.json").write_bytes(text.encode("utf-8", "surrogateescape"))
    with pytest.raises(UserError) as info:
        stop(folder)
    assert info.value.message.startswith(f"the record {folder / 'run.json'} is damaged")
    assert f"remove {folder}" in info.value.hint
