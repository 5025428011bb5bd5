"""The bad-input suite's sandbox: a fresh HOME per case, fake credentials, a proxy that records.

Each case runs the installed `xcli` as a subprocess with a clean environment: HOME, the xcli
state and config folders and CLOUDSDK_CONFIG all inside the case's own temporary folder, a
syntactically valid service-account key (a freshly generated RSA key, so google-auth would sign
a token request with it), and every proxy variable pointed at a listener on 127.0.0.1 that
records each connection. A bad input must be refused before any of that is used, so the
listener must stay silent and the folders unchanged.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import socket
import stat
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path

PROXY_VARS = ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY", "all_proxy")
TIMEOUT = 30  # seconds per case: a case that hangs (a FIFO opened for reading) fails, not blocks


class Listener:
    """A TCP listener on 127.0.0.1 whose thread records every connection and its first bytes."""

    def __init__(self) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.sock.settimeout(0.1)
        self.port: int = self.sock.getsockname()[1]
        self.seen: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            conn.settimeout(0.5)
            try:
                first = conn.recv(200).split(b"\r\n", 1)[0].decode("latin-1")
            except OSError:
                first = ""
            self.seen.append(first or "(connected, sent nothing)")
            conn.close()

    def close(self) -> list[str]:
        """Stop, after draining connections already queued; return what was seen."""
        self._stop.set()
        self._thread.join(timeout=2)
        self.sock.setblocking(False)
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                break
            self.seen.append("(queued connection)")
            conn.close()
        self.sock.close()
        return self.seen


def fake_credentials(path: Path) -> Path:
    """A service-account key file google-auth accepts (fields and a real RSA private key)."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()
    info = {
        "type": "service_account",
        "project_id": "bad-input-suite",
        "private_key_id": "0123456789abcdef0123456789abcdef01234567",
        "private_key": pem,
        "client_email": "suite@bad-input-suite.iam.gserviceaccount.com",
        "client_id": "100000000000000000000",
        "auth_uri": "https://accounts.google.com/o/oauth2/auth",
        "token_uri": "https://oauth2.googleapis.com/token",
    }
    path.write_text(json.dumps(info), encoding="utf-8")
    return path


def xcli_argv() -> list[str]:
    """The installed console script beside this interpreter, else `python -m xcli`."""
    script = Path(sys.executable).parent / "xcli"
    return [str(script)] if script.exists() else [sys.executable, "-m", "xcli"]


@dataclass
class Sandbox:
    """One case's folders: root/home (HOME), root/cwd (the empty working folder)."""

    root: Path
    inputs: Path  # shared read-only input files (binary, FIFO, big script, keys)
    credentials: Path

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def cwd(self) -> Path:
        return self.root / "cwd"

    def env(self, proxy_port: int, extra: dict[str, str]) -> dict[str, str]:
        proxy = f"http://127.0.0.1:{proxy_port}"
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(self.home),
            "XDG_CONFIG_HOME": str(self.home / ".config"),
            "XCLI_HOME": str(self.home / "state"),
            "CLOUDSDK_CONFIG": str(self.home / ".config" / "gcloud"),
            "GOOGLE_APPLICATION_CREDENTIALS": str(self.credentials),
            "NO_PROXY": "",
            "no_proxy": "",
            "NO_COLOR": "1",
            "LANG": "C.UTF-8",
            "USER": "suite",
        }
        env.update(dict.fromkeys(PROXY_VARS, proxy))
        env.update(extra)
        return {k: v for k, v in env.items() if v is not None}


def snapshot(root: Path) -> dict[str, tuple[str, int, int, int, str]]:
    """Every path under root: (kind, size, mtime_ns, mode, sha256 of a regular file's bytes).

    A folder's mtime catches deletions; the digest and the mode catch a file rewritten with the
    same size within the clock's resolution, or made wider or narrower (issue 26: "nothing
    changed, existing files included")."""
    found: dict[str, tuple[str, int, int, int, str]] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in [*dirnames, *filenames]:
            path = Path(dirpath) / name
            st = path.lstat()
            kind = "dir" if stat.S_ISDIR(st.st_mode) else "file"
            digest = ""
            if stat.S_ISREG(st.st_mode):
                try:
                    digest = hashlib.sha256(path.read_bytes()).hexdigest()
                except OSError as exc:  # unreadable (mode 000): its mode still counts
                    digest = f"unreadable: {exc.errno}"
            found[str(path.relative_to(root))] = (
                kind,
                st.st_size,
                st.st_mtime_ns,
                stat.S_IMODE(st.st_mode),
                digest,
            )
    return found


@dataclass
class Outcome:
    code: int
    stdout: str
    stderr: str
    connections: list[str]
    changed: list[str] = field(default_factory=list)


def run_case(sandbox: Sandbox, argv: list[str], env: dict[str, str], stdin: str | None) -> Outcome:
    listener = Listener()
    before = snapshot(sandbox.root)
    try:
        proc = subprocess.run(
            [*xcli_argv(), *argv],
            cwd=sandbox.cwd,
            env=sandbox.env(listener.port, env),
            input=stdin,
            stdin=None if stdin is not None else subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
        )
        code, out, err = proc.returncode, proc.stdout, proc.stderr
    except subprocess.TimeoutExpired as exc:
        code, out, err = -1, str(exc.stdout or ""), f"timed out after {TIMEOUT}s"
    seen = listener.close()
    after = snapshot(sandbox.root)
    changed = sorted({k for k in before.keys() | after.keys() if before.get(k) != after.get(k)})
    return Outcome(code, out, err, seen, changed)


def clean(root: Path) -> None:
    shutil.rmtree(root, ignore_errors=True)
