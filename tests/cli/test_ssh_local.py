"""`xcli ssh` and `xcli scp` against a real local cluster (the local provider's asyncssh worker
servers), created and deleted with the CLI: nothing of ours is left running afterwards."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.gateways.local_support import create, delete, needs_openssh, xcli

BASE = ("--provider", "local", "--cluster", "sshdemo")


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    needs_openssh()
    home = tmp_path_factory.mktemp("ssh-local")
    create(home, "sshdemo", "v5litepod-16", "--num-slices", "2")
    yield home
    delete(home, "sshdemo", check=False)


@pytest.mark.parametrize("engine", ["openssh", "asyncssh"])
def test_every_worker_answers_with_its_own_environment(home: Path, engine: str) -> None:
    run = xcli(home, "ssh", *BASE, "--worker=all", "--engine", engine, "--command",
               'echo "id=$TPU_WORKER_ID slice=$MEGASCALE_SLICE_ID"; exit $TPU_WORKER_ID',
               check=False)  # fmt: skip
    assert run.returncode == 3, run.stderr  # workers 0-3 exit with their own id
    expected = [f"[s{s}/w{w}] id={w} slice={s}" for s in range(2) for w in range(4)]
    assert sorted(run.stdout.splitlines()) == sorted(expected)
    assert "2 of 8 workers succeeded" in run.stderr
    assert "FAILED [s1/w3] exit code 3" in run.stderr


def test_copy_to_every_worker_and_back(home: Path, tmp_path: Path) -> None:
    src = tmp_path / "job.txt"
    src.write_text("hello workers\n")
    run = xcli(home, "scp", *BASE, "--worker=all", "--slice=0", str(src), ":job.txt")
    assert "4 of 4 workers succeeded" in run.stderr
    run = xcli(home, "ssh", *BASE, "--worker=all", "--slice=0", "--command", "cat job.txt")
    assert sorted(run.stdout.splitlines()) == [f"[s0/w{w}] hello workers" for w in range(4)]
    back = tmp_path / "back.txt"
    xcli(home, "scp", *BASE, "--worker=2", "--slice=0", ":job.txt", str(back))
    assert back.read_text() == "hello workers\n"


@pytest.mark.parametrize("engine", ["openssh", "asyncssh"])
def test_copy_from_every_worker_lands_once_in_each_workers_folder(
    home: Path, tmp_path: Path, engine: str
) -> None:
    """scp --worker=all :PATH DEST on 8 emulated workers: every worker's own file (one name on
    all of them) once, in DEST/sS-wW/; a worker without the file is named in the summary."""
    made = 'mkdir -p out && echo "$XCLI_WORKER" > out/mine.txt'
    xcli(home, "ssh", *BASE, "--worker=all", "--command", made)
    dest = tmp_path / "from-all"
    run = xcli(home, "scp", *BASE, "--worker=all", "--engine", engine, "-r", ":out", str(dest))
    assert "8 of 8 workers succeeded" in run.stderr
    files = sorted(p.relative_to(dest) for p in dest.rglob("*") if p.is_file())
    assert [str(f) for f in files] == [
        f"s{s}-w{w}/out/mine.txt" for s in range(2) for w in range(4)
    ]
    for f in files:
        assert (dest / f).read_text() == f"{f.parts[0].replace('-', '/')}\n"
    xcli(home, "ssh", *BASE, "--worker=2", "--slice=1", "--command", "rm out/mine.txt")
    run = xcli(home, "scp", *BASE, "--worker=all", "--engine", engine, ":out/mine.txt",
               str(tmp_path / "partial"), check=False)  # fmt: skip
    assert run.returncode == 1, run.stderr
    assert "7 of 8 workers succeeded" in run.stderr and "FAILED [s1/w2]" in run.stderr
    assert (tmp_path / "partial" / "s1-w3" / "mine.txt").is_file()


@pytest.mark.parametrize("engine", ["openssh", "asyncssh"])
def test_copy_into_a_new_home_folder_is_the_same_on_both_engines(
    home: Path, tmp_path: Path, engine: str
) -> None:
    """`:~/FOLDER/` is the worker's login folder on both engines, and is created when missing
    (OpenSSH's scp does that in SFTP mode; the asyncssh engine creates it over SFTP first)."""
    files = [tmp_path / "a.txt", tmp_path / "b.txt"]
    for f in files:
        f.write_text(f"{f.name} for {engine}\n")
    folder = f"new-{engine}"
    run = xcli(home, "scp", *BASE, "--worker=all", "--slice=1", "--engine", engine,
               *map(str, files), f":~/{folder}/")  # fmt: skip
    assert "4 of 4 workers succeeded" in run.stderr, run.stderr
    run = xcli(home, "ssh", *BASE, "--worker=all", "--slice=1", "--command",
               f"cat {folder}/a.txt ~/{folder}/b.txt")  # fmt: skip
    lines = sorted(run.stdout.splitlines())
    assert lines == sorted(
        f"[s1/w{w}] {name} for {engine}" for w in range(4) for name in ("a.txt", "b.txt")
    )


def test_delete_leaves_no_reusable_connection_behind(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    from xcli.gateways.ssh.openssh_engine import control_dir

    needs_openssh()
    home = tmp_path_factory.mktemp("ssh-local-delete")
    create(home, "gone", "v5litepod-16")
    xcli(
        home, "ssh", "--provider", "local", "--cluster", "gone", "--worker=all",
        "--command", "true", "--engine", "openssh",
    )  # fmt: skip
    monkeypatch.setenv("XCLI_HOME", str(home / "state"))  # where that CLI kept its sockets
    sockets = list(control_dir().iterdir())
    assert len(sockets) == 4  # one reusable connection (an ssh master process) per worker
    delete(home, "gone")
    deadline = time.monotonic() + 10
    while any(p.exists() for p in sockets) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(p.exists() for p in sockets), "ssh master processes outlived the cluster"
