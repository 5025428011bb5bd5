"""known_hosts edits from several xcli processes at once lose no line (fcntl.flock)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO

ROUNDS = 40

# One process: pins ROUNDS clusters of its own (tpu_access.pin, a read-modify-write of the
# whole file) into the shared file.
PINNER = """
import sys
from pathlib import Path
from xcli.providers.queued_resource import access as tpu_access

file, me, rounds = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
sys.stdin.readline()  # start together
for n in range(rounds):
    owner = f"xcli:p/z/{me}-{n}/"
    host = f"10.{len(me)}.{n // 250}.{n % 250}-{me}"
    tpu_access.pin(file, owner, [("n/w0", [host], ["ssh-ed25519 AAAA" + me])])
"""


def test_two_processes_pinning_at_once_keep_every_line(tmp_path: Path) -> None:
    file = tmp_path / "known_hosts"
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", PINNER, str(file), me, str(ROUNDS)],
            cwd=REPO,
            stdin=subprocess.PIPE,
            text=True,
        )
        for me in ("alpha", "beta")
    ]
    for proc in procs:
        assert proc.stdin is not None
        proc.stdin.write("go\n")
        proc.stdin.flush()
    for proc in procs:
        assert proc.wait(timeout=120) == 0
    lines = file.read_text().splitlines()
    owners = sorted(line.split()[3].split("/")[2] for line in lines)
    assert owners == sorted(f"{me}-{n}" for me in ("alpha", "beta") for n in range(ROUNDS))
    assert not list(tmp_path.glob("*.tmp"))
