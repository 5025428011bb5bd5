"""SSH key pairs xcli creates: Ed25519, private key in OpenSSH format (0600), `.pub` beside it.

One path for every key xcli generates: the key it puts on TPU VMs (~/.ssh/xcli_ed25519) and the
local emulator's client and host keys. asyncssh writes both halves (it is xcli's SSH engine
already); the format is OpenSSH's own, `ssh-keygen -t ed25519` writes the same.
"""

from __future__ import annotations

from pathlib import Path

from xcli.state_files import write_private

KEY_TYPE = "ssh-ed25519"


def generate_key_pair(path: Path, comment: str) -> str:
    """Write a new Ed25519 key at `path` and its public key at `path`.pub; return the public
    key line `ssh-ed25519 AAAA... comment`.

    Each half is written to a new temporary file and renamed (xcli/state_files.py), so no
    reader ever sees half a key; an existing key at `path` is replaced (callers generate only
    when it is missing). Folders created on the way are 0700, both files 0600.
    """
    import asyncssh

    key = asyncssh.generate_private_key(KEY_TYPE, comment=comment)
    # Owner-only whatever the umask, through a fresh temporary name (O_EXCL): a stale or planted
    # `.tmp` beside the key is never reused with its own wider modes (issue 26).
    write_private(path, key.export_private_key("openssh"))
    public: bytes = key.export_public_key("openssh")
    write_private(path.with_name(path.name + ".pub"), public)
    return public.decode().strip()
