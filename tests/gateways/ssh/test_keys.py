"""The one key generator: Ed25519 in OpenSSH format, 0600, and a .pub line with the comment."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from xcli.gateways.ssh.keys import generate_key_pair


def test_key_pair_files_modes_and_public_line(tmp_path: Path) -> None:
    key = tmp_path / "ssh" / "id"
    line = generate_key_pair(key, "xcli-test")
    kind, blob, comment = line.split()
    assert (kind, comment) == ("ssh-ed25519", "xcli-test")
    assert key.stat().st_mode & 0o777 == 0o600
    assert key.parent.stat().st_mode & 0o777 == 0o700
    assert key.read_bytes().startswith(b"-----BEGIN OPENSSH PRIVATE KEY-----\n")
    assert (tmp_path / "ssh" / "id.pub").read_text() == line + "\n"
    assert not (tmp_path / "ssh" / "id.tmp").exists()
    assert generate_key_pair(tmp_path / "other", "c").split()[1] != blob


@pytest.mark.skipif(not shutil.which("ssh-keygen"), reason="needs OpenSSH's ssh-keygen")
def test_openssh_reads_the_private_key(tmp_path: Path) -> None:
    key = tmp_path / "id"
    line = generate_key_pair(key, "xcli-test")
    derived = subprocess.run(
        ["ssh-keygen", "-y", "-f", str(key)], check=True, capture_output=True, text=True
    ).stdout.split()
    assert derived[:2] == line.split()[:2]
