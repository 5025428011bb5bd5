"""xcli's own files are whole, locked and owner-only (issue 26 items 4 and 7), tried with real
processes: concurrent writers of clusters.json and config.yaml lose nothing; a write that fails
(a file-size limit makes it fail half-way, as a full disk does) leaves the old file and says so
in one line; files and folders are 0600/0700 at umask 000 and 022; a stale temporary file never
widens a private key's modes."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from tests.conftest import REPO
from xcli import cluster_index, config, paths
from xcli.errors import UserError
from xcli.state_files import locked, open_private, private_dir, write_private

# Each child waits for the `go` file, so the writers really overlap.
CHILD = """
import os, sys, time
while not os.path.exists(sys.argv[1]):
    time.sleep(0.005)
"""


def _start(code: str, go: Path, *args: str) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": str(REPO), "PYTHONDONTWRITEBYTECODE": "1"}
    argv = [sys.executable, "-c", CHILD + textwrap.dedent(code), str(go), *args]
    return subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def _run_all(procs: list[subprocess.Popen[bytes]], go: Path) -> None:
    time.sleep(0.5)  # let every interpreter start
    go.touch()
    for proc in procs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err.decode()


def test_concurrent_cluster_index_writers_lose_nothing(tmp_path: Path) -> None:
    writers, each = 6, 25
    code = """
    from xcli import cluster_index
    for i in range(int(sys.argv[3])):
        cluster_index.record(f"c-{sys.argv[2]}-{i}", "local" if i % 2 else "gke")
    """
    go = tmp_path / "go"
    _run_all([_start(code, go, str(w), str(each)) for w in range(writers)], go)
    found = json.loads(cluster_index.index_file().read_text())["clusters"]
    assert len(found) == writers * each, f"lost {writers * each - len(found)} entries"


def test_concurrent_config_set_loses_nothing(tmp_path: Path) -> None:
    """Half the writers set the project, half the zone, through the CLI's own `config set`."""
    code = """
    from xcli.cli.main import main
    key, n = sys.argv[2], int(sys.argv[3])
    for i in range(20):
        value = f"proj-{n}-{i:03d}" if key == "project" else f"us-east{n}-{chr(97 + i % 3)}"
        try:
            main(["config", "set", key, value])
        except SystemExit as exc:
            assert exc.code in (0, None), exc.code
    """
    go = tmp_path / "go"
    procs = [_start(code, go, key, str(n)) for n in range(3) for key in ("project", "zone")]
    _run_all(procs, go)
    data = yaml.safe_load(paths.config_file().read_text())
    assert set(data) == {"project", "zone"}, f"an update was lost: {data}"


def _fail_half_way(code: str, limit: int) -> subprocess.CompletedProcess[str]:
    """Run `code` where no file may grow past `limit` bytes: a write fails half-way (EFBIG)."""
    prelude = (
        "import resource, signal\n"
        "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
        f"resource.setrlimit(resource.RLIMIT_FSIZE, ({limit}, {limit}))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO), "PYTHONDONTWRITEBYTECODE": "1"}
    argv = [sys.executable, "-c", prelude + textwrap.dedent(code)]
    return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60, check=False)


def test_failed_config_write_keeps_the_old_file() -> None:
    config.write_user_config({"project": "kept-project", "zone": "us-east5-b"})
    before = paths.config_file().read_bytes()
    done = _fail_half_way(
        'from xcli.cli.main import main\nmain(["config", "set", "project", "p" * 29 + "x"])', 20
    )
    assert paths.config_file().read_bytes() == before
    assert done.returncode == 1, done.stderr
    lines = done.stderr.splitlines()
    assert [line.split(":")[0] for line in lines] == ["error", "hint"], done.stderr
    assert str(paths.config_file()) in lines[0]
    assert not [p for p in paths.config_file().parent.iterdir() if p.name.endswith(".tmp")]


def test_failed_cluster_index_write_keeps_the_old_file() -> None:
    cluster_index.record("old", "gke")
    before = cluster_index.index_file().read_bytes()
    code = "from xcli import cluster_index\n" + "".join(
        f"cluster_index.record('new-{i}', 'gke')\n" for i in range(5)
    )
    done = _fail_half_way(code, len(before) + 5)
    assert done.returncode != 0
    assert "cannot write" in done.stderr and "File too large" in done.stderr
    assert cluster_index.index_file().read_bytes() == before


@pytest.fixture(params=[0o000, 0o022])
def umask(request: pytest.FixtureRequest) -> Iterator[int]:
    old = os.umask(request.param)
    try:
        yield request.param
    finally:
        os.umask(old)


def _wider(root: Path) -> list[str]:
    """Files and folders under root (root included) that group or others may use."""
    found = []
    for path in [root, *root.rglob("*")]:
        mode = stat.S_IMODE(path.lstat().st_mode)
        if not path.is_symlink() and mode & 0o077:
            found.append(f"{path.relative_to(root.parent)} {mode:o}")
    return found


def test_state_files_are_owner_only_whatever_the_umask(umask: int) -> None:
    home = paths.state_dir()
    cluster_index.record("demo", "local")
    config.write_user_config({"project": "my-project"})
    write_private(home / "workloads" / "demo" / "w" / "state.json", "{}")
    with open_private(home / "workloads" / "demo" / "w" / "logs" / "w-0.log") as log:
        log.write(b"line\n")
    with locked(home / "local" / "demo" / "known_hosts"):
        pass
    assert _wider(home) == []
    assert _wider(paths.config_dir()) == []


def test_stale_temporary_file_never_widens_a_key(umask: int) -> None:
    """A planted `.key.*.tmp` (wide, or a link elsewhere) is neither reused nor followed."""
    folder = private_dir(paths.state_dir() / "keys")
    elsewhere = folder.parent / "elsewhere"
    elsewhere.write_text("not yours")
    for n in range(3):
        stale = folder / f".id_ed25519.stale{n}.tmp"
        stale.write_text("old")
        stale.chmod(0o666)
    (folder / "id_ed25519.tmp").symlink_to(elsewhere)
    key = write_private(folder / "id_ed25519", b"PRIVATE KEY\n")
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    assert key.read_bytes() == b"PRIVATE KEY\n"
    assert elsewhere.read_text() == "not yours"


def test_gateway_key_pair_is_owner_only(umask: int) -> None:
    from xcli.gateways.ssh.keys import generate_key_pair

    path = paths.state_dir() / "local" / "demo" / "client_key"
    private_dir(path.parent)
    path.with_name(path.name + ".tmp").write_text("stale")
    path.with_name(path.name + ".tmp").chmod(0o666)
    generate_key_pair(path, "test")
    for file in (path, path.with_name(path.name + ".pub")):
        assert stat.S_IMODE(file.stat().st_mode) == 0o600, file


def test_write_error_is_one_line_with_a_hint(tmp_path: Path) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o500)
    if os.access(folder, os.W_OK):  # root ignores modes
        pytest.skip("running as root: modes do not stop writes")
    with pytest.raises(UserError) as info:
        write_private(folder / "state.json", "{}")
    assert "Permission denied" in info.value.message and info.value.hint


def test_no_space_while_writing_a_users_folder_is_one_line(tmp_path: Path) -> None:
    """A write(2) that fails for want of space names no file: still one error line, exit 1
    (it was an internal error, exit 3). The file-size limit stands in for a full disk."""
    out = tmp_path / "deployment"
    code = (
        "from xcli.cli.main import main\n"
        "main(['cluster', 'create', '--provider', 'local', '--cluster', 'full', '--tpu-type',"
        f" 'v5litepod-8', '--dry-run', '--out', {str(out)!r}])\n"
    )
    done = _fail_half_way(code, 64)
    assert done.returncode == 1, done.stderr
    lines = done.stderr.splitlines()
    assert [line.split(":")[0] for line in lines] == ["error", "hint"], done.stderr
    assert "File too large" in lines[0]


def _xcli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    from xcli.cli.errors import run_guarded
    from xcli.cli.main import cli

    code = run_guarded(cli, args, debug=False)
    out, err = capsys.readouterr()
    return code, out, err


def _planted(home: Path) -> Path:
    """A record another user planted: `workload delete` would run its stop command."""
    marker = home.parent / "ran"
    run = home / "workloads" / "demo" / "w"
    run.mkdir(parents=True)
    (run / "state.json").write_text(json.dumps({"stop": f"touch {marker}"}))
    return marker


def test_a_state_folder_others_may_write_is_refused(
    capsys: pytest.CaptureFixture[str],
) -> None:
    home = Path(os.environ["XCLI_HOME"])
    home.mkdir(mode=0o700)
    marker = _planted(home)
    os.chmod(home, 0o777)
    code, out, err = _xcli(["cluster", "list", "--provider", "local"], capsys)
    assert code == 1 and out == ""
    lines = err.splitlines()
    assert lines[0] == f"error: XCLI_HOME {home} is writable by other users (mode 777)"
    assert lines[1].startswith("hint: check what it holds, then `chmod go-w ")
    assert not marker.exists()


@pytest.mark.skipif(os.getuid() != 0, reason="only root can give a folder to another user")
def test_a_state_folder_another_user_owns_is_refused_even_for_root(
    capsys: pytest.CaptureFixture[str],
) -> None:
    home = Path(os.environ["XCLI_HOME"])
    home.mkdir(mode=0o700)
    marker = _planted(home)
    os.chown(home, 65534, 65534)
    code, out, err = _xcli(["workload", "delete", "w", "--cluster", "demo", "--yes"], capsys)
    assert code == 1 and out == ""
    assert err.startswith(f"error: XCLI_HOME {home} belongs to another user (uid 65534, you are 0)")
    assert "hint: set XCLI_HOME to a folder of yours (or unset it); if the folder is yours" in err
    assert not marker.exists()


def test_check_owner_names_the_owner_and_the_fix(tmp_path: Path) -> None:
    from xcli.state_files import check_owner

    check_owner(tmp_path / "missing", "XCLI_HOME", "fix")  # created later, 0700
    check_owner(tmp_path, "XCLI_HOME", "fix")
    with pytest.raises(UserError) as info:
        check_owner(tmp_path, "XCLI_HOME", "set XCLI_HOME elsewhere", uid=os.getuid() + 1)
    assert "belongs to another user" in info.value.message
    assert info.value.hint.startswith("set XCLI_HOME elsewhere; if the folder is yours")
