"""Every bad input is refused cleanly, by the installed CLI, before anything is touched.

For each case of tests/cli/bad_input_cases.py: the exit code (1, or 2 for a command line that
does not parse), exactly one `error:` line and one `hint:` line on stderr and nothing else, no
traceback, nothing created or changed in HOME, the working folder or a target folder, and no
connection to the recording proxy every proxy variable points at. The cases run once, in a
small thread pool (each is its own process), the first time any of them is asked for.
"""

from __future__ import annotations

import collections
import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.cli.bad_input_cases import SETUPS, Case, all_cases, prepare_inputs
from tests.cli.bad_input_sandbox import Outcome, Sandbox, fake_credentials, run_case, snapshot

CASES = all_cases()
WORKERS = max(2, min(4, (os.cpu_count() or 2)))


def _expand(text: str, box: Sandbox) -> str:
    return (
        text.replace("{in}", str(box.inputs))
        .replace("{home}", str(box.home))
        .replace("{cwd}", str(box.cwd))
    )


def _run(case: Case, root: Path, inputs: Path, credentials: Path) -> Outcome:
    box = Sandbox(root, inputs, credentials)
    box.home.mkdir(parents=True)
    box.cwd.mkdir()
    if case.setup:
        SETUPS[case.setup](root)
    argv = [_expand(a, box) for a in case.argv]
    env = {k: _expand(v, box) for k, v in case.env.items()}
    return run_case(box, argv, env, stdin=None)


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Outcome]:
    base = tmp_path_factory.mktemp("bad-input")
    inputs = base / "inputs"
    prepare_inputs(inputs)
    credentials = fake_credentials(base / "service-account.json")
    with ThreadPoolExecutor(WORKERS) as pool:
        futures = {
            case.id: pool.submit(_run, case, base / f"case-{n}", inputs, credentials)
            for n, case in enumerate(CASES)
        }
        return {key: future.result() for key, future in futures.items()}


def test_the_table_is_large_and_covers_every_command() -> None:
    assert len(CASES) >= 150
    commands = {
        " ".join(c.argv[:2])
        if c.argv[0] in ("cluster", "workload", "catalog", "config")
        else c.argv[0]
        for c in CASES
    }
    for command in (
        "cluster create",
        "cluster delete",
        "cluster describe",
        "cluster list",
        "cluster wait",
        "workload create",
        "workload list",
        "workload status",
        "workload logs",
        "workload wait",
        "workload delete",
        "workload stragglers",
        "workload report",
        "ssh",
        "scp",
        "catalog show",
        "catalog list",
        "config set",
        "config get",
        "config list",
    ):
        assert command in commands, command
    per_section = collections.Counter(c.section for c in CASES)
    assert all(count >= 5 for count in per_section.values()), per_section


def test_the_snapshot_sees_a_rewrite_and_a_mode_change_that_keep_size_and_time(
    tmp_path: Path,
) -> None:
    """The changed-file check: an existing file rewritten in place (same size, mtime put back)
    or given other modes counts as changed, as a new or deleted file does."""
    config = tmp_path / "home" / ".config" / "xcli" / "config.yaml"
    config.parent.mkdir(parents=True)
    config.write_text("project: a\n", encoding="utf-8")
    before = snapshot(tmp_path)
    st = config.stat()
    config.write_text("project: b\n", encoding="utf-8")
    os.utime(config, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert snapshot(tmp_path) != before
    config.write_text("project: a\n", encoding="utf-8")
    os.utime(config, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert snapshot(tmp_path) == before
    config.chmod(0o666)
    os.utime(config, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert snapshot(tmp_path) != before


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input_is_refused_cleanly(case: Case, outcomes: dict[str, Outcome]) -> None:
    got = outcomes[case.id]
    report = f"exit {got.code}\nstderr:\n{got.stderr}\nstdout:\n{got.stdout[-2000:]}"
    assert got.code == case.code, report
    assert "Traceback" not in got.stderr + got.stdout, report
    lines = [line for line in got.stderr.splitlines() if line.strip()]
    assert len(lines) == 2, report
    assert lines[0].startswith("error: ") and lines[1].startswith("hint: "), report
    assert len(lines[0]) > len("error: ") + 5 and len(lines[1]) > len("hint: ") + 5, report
    # a huge value is not echoed back whole (issue 26: huge values)
    assert all(len(line) <= 1000 for line in lines), f"an error line of {len(lines[0])}"
    assert got.connections == [], f"connected to the proxy: {got.connections}\n{report}"
    assert got.changed == [], f"changed in the sandbox: {got.changed}\n{report}"
