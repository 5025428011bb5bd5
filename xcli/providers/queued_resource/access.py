"""Local half of SSH access to TPU VMs: xcli's key, the ssh-keys metadata merge, known_hosts.

- The key: ~/.ssh/xcli_ed25519 (OpenSSH format, mode 0600) and .pub, created by
  xcli/gateways/ssh/keys.py when missing; or the user's --ssh-key FILE (FILE.pub, or derived).
- The merge: `ssh-keys` metadata is one "user:keytype key comment" line per key; ours is appended
  when absent and no other line is ever dropped.
- known_hosts: xcli's own file in the state folder. Each line pins one worker's host key for its
  internal and external IPs and ends with the comment xcli:PROJECT/ZONE/QR/NODE/wN, so re-pinning
  or deleting a cluster replaces exactly its own lines.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from xcli import paths
from xcli.errors import UserError
from xcli.state_files import write_private


def key_path(text: str) -> Path:
    return Path(os.path.expanduser(text))


def ensure_key(path: Path, create: bool, comment: str = "xcli") -> str:
    """The public key line for the private key at `path`, generating the pair if allowed."""
    from cryptography.hazmat.primitives import serialization

    from xcli.gateways.ssh.keys import generate_key_pair

    public = path.with_name(path.name + ".pub")
    if not path.exists():
        if not create:
            raise UserError(f"SSH key {path} does not exist", hint="pass an existing --ssh-key")
        generate_key_pair(path, comment)
    if public.exists():
        return public.read_text(encoding="utf-8").strip()
    try:
        loaded = serialization.load_ssh_private_key(path.read_bytes(), password=None)
    except (ValueError, TypeError) as exc:
        raise UserError(
            f"cannot read SSH key {path}: {exc}",
            hint=f"put its public key next to it as {public.name}",
        ) from None
    line = loaded.public_key().public_bytes(
        serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH
    )
    return f"{line.decode()} {comment}"


def check_user_key(text: str, flag: str = "--ssh-key") -> Path:
    """A key the user named: an existing private key file, checked before anything is sent."""
    from xcli.user_files import KIB, read_bytes

    path = key_path(text)
    data = read_bytes(path, flag, 64 * KIB, "an SSH private key is a few KiB")
    head = data.lstrip()[:200]
    if head.startswith((b"ssh-", b"ecdsa-", b"sk-")):
        raise UserError(
            f"{flag} {text} is a public key", hint="pass the private key (the file without .pub)"
        )
    if not (head.startswith(b"-----BEGIN ") and b"PRIVATE KEY-----" in head):
        raise UserError(
            f"{flag} {text} is not an SSH private key",
            hint="pass a private key file (its first line is -----BEGIN ... PRIVATE KEY-----), "
            "e.g. one made by ssh-keygen",
        )
    return path


def _key_blob(line: str) -> str:
    """'user:ssh-ed25519 AAAA.. c' or 'ssh-ed25519 AAAA.. c' -> 'AAAA..'."""
    parts = line.split(":", 1)[-1].split()
    return parts[1] if len(parts) > 1 else ""


def merge_ssh_keys(metadata: Mapping[str, str], entry: str) -> dict[str, str] | None:
    """The node metadata with `entry` added to ssh-keys; None when it is already there."""
    current = metadata.get("ssh-keys", "")
    lines = [line for line in current.splitlines() if line.strip()]
    blob = _key_blob(entry)
    user = entry.split(":", 1)[0]
    if any(line.split(":", 1)[0] == user and _key_blob(line) == blob for line in lines):
        return None
    merged = dict(metadata)
    merged["ssh-keys"] = "\n".join([*lines, entry])
    return merged


def user_for_key(metadata: Mapping[str, str], public_key: str) -> str | None:
    """The user whose ssh-keys line carries this public key."""
    blob = _key_blob(public_key)
    for line in metadata.get("ssh-keys", "").splitlines():
        if ":" in line and _key_blob(line) == blob:
            return line.split(":", 1)[0]
    return None


def host_keys(attributes: list[dict[str, Any]]) -> list[dict[str, str]]:
    """Per worker (in order): host key lines and hostname, from nodes.getGuestAttributes."""
    workers = []
    for worker in attributes:
        keys, hostname = [], ""
        for item in worker.get("queryValue", {}).get("items", []):
            key, value = item.get("key", ""), item.get("value", "").strip()
            if item.get("namespace") == "hostkeys" and value:
                keys.append(value if " " in value else f"{key} {value}")
            elif key == "hostname":
                hostname = value
        workers.append({"keys": "\n".join(keys), "hostname": hostname})
    return workers


def known_hosts_file(name: str = "known_hosts") -> Path:
    return paths.state_dir() / name


def pin(file: Path, owner: str, entries: Iterable[tuple[str, list[str], list[str]]]) -> int:
    """Replace the lines of `owner` (xcli:P/Z/QR/) with (tag, hosts, key lines); return count."""
    lines: list[str] = []
    for tag, hosts, keys in entries:
        hosts = [h for h in hosts if h]
        lines += [f"{','.join(hosts)} {key} {owner}{tag}" for key in keys if hosts]
    taken = {h for line in lines for h in line.split(" ", 1)[0].split(",")}
    from xcli.gateways.file_lock import locked

    with locked(file):  # other xcli processes edit this file too
        kept = [
            line
            for line in _read(file)
            if not _comment(line).startswith(owner)
            and not taken.intersection(line.split(" ", 1)[0].split(","))
        ]
        _write(file, kept + lines)
    return len(lines)


def pinned_hosts(file: Path, owner: str) -> dict[str, set[str]]:
    """The hosts pinned per worker tag (NODE/wN) among the lines of `owner` (xcli:P/Z/QR/)."""
    found: dict[str, set[str]] = {}
    for line in _read(file):
        comment = _comment(line)
        if comment.startswith(owner):
            found.setdefault(comment[len(owner) :], set()).update(line.split(" ", 1)[0].split(","))
    return found


def moved(current: Mapping[str, list[str]], pinned: Mapping[str, set[str]]) -> list[str]:
    """The worker tags whose addresses now are not all among those pinned for them."""
    return [
        tag
        for tag, hosts in current.items()
        if not {h for h in hosts if h} <= pinned.get(tag, set())
    ]


def forget(file: Path, owner: str) -> int:
    from xcli.gateways.file_lock import locked

    with locked(file):
        old = _read(file)
        kept = [line for line in old if not _comment(line).startswith(owner)]
        if len(kept) != len(old):
            _write(file, kept)
    return len(old) - len(kept)


def _comment(line: str) -> str:
    parts = line.split()
    return parts[3] if len(parts) > 3 else ""


def _read(file: Path) -> list[str]:
    if not file.exists():
        return []
    return [line for line in file.read_text(encoding="utf-8").splitlines() if line.strip()]


def _write(file: Path, lines: list[str]) -> None:
    from xcli.gateways.file_lock import replace_text

    replace_text(file, "".join(line + "\n" for line in lines))  # owner-only, folders 0700


def _access_file(project: str, zone: str, name: str) -> Path:
    return paths.state_dir() / "queued-resources" / project / zone / f"{name}.json"


def remember_access(
    project: str, zone: str, name: str, user: str, key_file: str, os_login: bool = False
) -> None:
    """Record which key and user SSH access was set up with (and when, and whether through
    OS Login), for `workers()` and `xcli ssh`."""
    file = _access_file(project, zone, name)
    record = {"user": user, "key_file": key_file, "os_login": "true" if os_login else ""}
    record["at"] = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    write_private(file, json.dumps(record) + "\n")


def recall_access(project: str, zone: str, name: str) -> dict[str, str]:
    file = _access_file(project, zone, name)
    if not file.exists():
        return {}
    data: dict[str, str] = json.loads(file.read_text(encoding="utf-8"))
    return data
