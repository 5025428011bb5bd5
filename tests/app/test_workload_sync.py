"""`workload create --script-dir` on a local cluster (real emulated workers over SSH): the folder
is copied to every worker and the command runs in it; an unchanged folder sends nothing, a
one-file change one layer, and a worker that lost its layer files gets them all again."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.gateways.local_support import create, delete, needs_openssh, xcli


@pytest.fixture(autouse=True)
def _openssh() -> None:
    needs_openssh()


def _layer_files(workers: Path) -> dict[str, dict[str, float]]:
    return {
        w.name: {p.name: p.stat().st_mtime for p in (w / ".xcli" / "layers").iterdir()}
        for w in sorted(workers.iterdir())
    }


def test_script_dir_is_copied_to_every_worker_and_only_what_changed_is_sent(
    tmp_path: Path,
) -> None:
    create(tmp_path, "sync", "v5litepod-8")
    try:
        src = tmp_path / "code"
        (src / "cfg").mkdir(parents=True)
        (src / "greeting.txt").write_text("hello\n")
        for i in range(60):  # 12 MB: enough to make several layers (8 MiB each)
            (src / "cfg" / f"part{i}.bin").write_bytes(bytes([i]) * 200_000)
        (src / "scratch.log").write_text("not copied\n")
        (src / ".dockerignore").write_text("*.log\n")
        where = ("--provider", "local", "--cluster", "sync")
        command = 'cat greeting.txt > "$HOME/seen.txt"'

        def run(name: str) -> str:
            out = xcli(tmp_path, "workload", "create", *where, "--workload", name,
                       "--script-dir", str(src), "--command", command)  # fmt: skip
            return out.stderr

        dry = xcli(tmp_path, "workload", "create", *where, "--workload", "w0", "--script-dir",
                   str(src), "--command", command, "--dry-run", "-o", "json")  # fmt: skip
        plan = json.loads(dry.stdout)["plan"]
        assert plan[0]["kind"] == "script_sync" and plan[1]["after"] == ["script-sync"]
        layers = len(plan[0]["layers"])
        assert layers > 1

        run("w1")
        workers = tmp_path / "state" / "local" / "sync" / "workers"
        seen = sorted(p.read_text() for p in workers.glob("*/seen.txt"))
        assert seen == ["hello\n", "hello\n"]  # ran in the folder, on both workers
        for folder in workers.glob("*/.xcli/scripts/*"):
            names = {p.name for p in folder.iterdir()}
            assert names == {"greeting.txt", "cfg", ".dockerignore", ".xcli-complete"}
        first = _layer_files(workers)
        assert [len(v) for v in first.values()] == [layers, layers]

        run("w2")  # unchanged: nothing sent
        assert _layer_files(workers) == first

        (src / "greeting.txt").write_text("changed\n")
        run("w3")
        after = _layer_files(workers)
        for name, files in after.items():
            new = set(files) - set(first[name])
            assert len(new) == 1  # the one layer holding greeting.txt
            assert all(files[f] == first[name][f] for f in first[name])  # the rest untouched
        seen = sorted(p.read_text() for p in workers.glob("*/seen.txt"))
        assert seen == ["changed\n", "changed\n"]

        lost = sorted(workers.iterdir())[0] / ".xcli" / "layers"
        shutil.rmtree(lost)  # a recreated worker: this machine's record is stale
        (src / "greeting.txt").write_text("again\n")
        run("w4")
        assert len(list(lost.iterdir())) == layers  # all of them again, for that worker
        seen = sorted(p.read_text() for p in workers.glob("*/seen.txt"))
        assert seen == ["again\n", "again\n"]
    finally:
        delete(tmp_path, "sync")


def test_base_image_is_refused_on_vm_style_clusters(tmp_path: Path) -> None:
    out = xcli(tmp_path, "workload", "create", "--provider", "local", "--cluster", "x",
               "--workload", "w", "--command", "true", "--base-docker-image", "python:3.10",
               check=False)  # fmt: skip
    assert out.returncode == 1
    assert "--script-dir DIR alone copies DIR to every worker" in out.stderr
