"""SSH key pairs xcli creates: Ed25519, private key in OpenSSH format (0600), `.pub` beside it.

One path for every key xcli generates: the key it puts on TPU VMs (~/.ssh/xcli_ed25519) and the
local emulator's client and host keys. asyncssh writes both halves (it is xcli's SSH engine
already); the format is OpenSSH's own, `ssh-keygen -t ed25519` writes the same.
"""

from __future__ import annotations

import os
from pathlib import Path

KEY_TYPE = "ssh-ed25519"


def generate_key_pair(path: Path, comment: str) -> str:
    """Write a new Ed25519 key at `path` (mode 0600, its folder 0700 if created) and its public
    key at `path`.pub; return the public key line `ssh-ed25519 AAAA... comment`.

    The private key is written to a temporary file and renamed, so no reader ever sees half a
    key; an existing key at `path` is replaced (callers generate only when it is missing).
    """
    import asyncssh

    key = asyncssh.generate_private_key(KEY_TYPE, comment=comment)
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(key.export_private_key("openssh"))
    os.replace(tmp, path)
    public: bytes = key.export_public_key("openssh")
    path.with_name(path.name + ".pub").write_bytes(public)
    return public.decode().strip()
