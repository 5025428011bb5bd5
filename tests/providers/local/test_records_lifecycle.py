"""Records do not outlive their cluster (issue 26 item 8): a local cluster created again under
an old name sees none of the old cluster's attached storages (an --auto-mount one would be
mounted read-write into every workload) nor its workload runs. Real processes, through the CLI.
"""

from __future__ import annotations

from pathlib import Path

from tests.gateways.local_support import create, delete, needs_openssh, xcli

WHERE = ("--provider", "local", "--cluster", "reborn")


def test_new_cluster_with_an_old_name_inherits_no_records(tmp_path: Path) -> None:
    needs_openssh()
    folder = tmp_path / "dataset"
    folder.mkdir()
    (folder / "keep").write_text("the data stays")
    create(tmp_path, "reborn", "v5litepod-8")
    try:
        xcli(tmp_path, "workload", "create", *WHERE, "--workload", "oldrun",
             "--docker-image", "python:3.11", "--command", "true")  # fmt: skip
        xcli(tmp_path, "storage", "attach", "oldstore", *WHERE, "--type", "gcsfuse",
             "--path", str(folder), "--mount-point", "/mnt/oldstore", "--auto-mount")  # fmt: skip
        assert "oldstore" in xcli(tmp_path, "storage", "list", *WHERE).stdout
        assert "oldrun" in xcli(tmp_path, "workload", "list", *WHERE).stdout
        delete(tmp_path, "reborn")
        create(tmp_path, "reborn", "v5litepod-8")
        storages = xcli(tmp_path, "storage", "list", *WHERE).stdout
        runs = xcli(tmp_path, "workload", "list", *WHERE).stdout
        inherited = ("oldstore" in storages, "oldrun" in runs)
        assert inherited == (False, False), storages + runs
        assert (folder / "keep").read_text() == "the data stays"  # a record goes, data stays
    finally:
        delete(tmp_path, "reborn", check=False)
