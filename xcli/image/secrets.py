"""What `--script-dir` leaves out unless told: version-control data and the usual secret files and
folders, and files whose first bytes are a private key or a credential.

Docker packs whatever `.dockerignore` does not exclude; xcli packs a folder the user may never
have looked at (by default the current one), so it leaves out by default the paths below, says
which and why, and packs one only when the folder's `.dockerignore` re-includes it with an
exception (`!.env`) or `--script-include PATTERN` names it. The list starts from the secret and
VCS entries of the `.dockerignore` that Docker's `docker init` writes (`**/.env`, `**/.git`,
`**/secrets.dev.yaml`; the tool ships in Docker Desktop, not in a public repository, so this is
its output as generated, not a pinned file) and adds the credential files and folders of the
tools an ML engineer has signed in with: OpenSSH's keys (`ssh-keygen(1)`, FILES: `id_rsa`,
`id_ecdsa`, `id_ed25519`, `~/.ssh/`), `netrc` (GNU inetutils' `ftp(1)`), git's credential store
(`git-credential-store(1)`: `.git-credentials`), the AWS CLI's `~/.aws/`, Docker's
`~/.docker/config.json`, kubectl's `~/.kube/`, the gcloud folder and its application-default
credentials (`~/.config/gcloud/application_default_credentials.json`, Google's "How Application
Default Credentials works"), Google's service-account and OAuth client files
(`credentials.json`, `client_secret*.json`), GnuPG's home, pip's and npm's upload logins
(`.pypirc`, `.npmrc`), and key files (`*.pem`, `*.key`, `*.p12`, `*.pfx`).

A file that is packed is refused when its first bytes are a PEM private key, a Google service
account key or user credential (the JSON `"type"` with `"private_key"` or `"refresh_token"`), or
an AWS credentials file (`aws_secret_access_key`), unless it was included on purpose.
"""

from __future__ import annotations

import re
from typing import Any

from xcli.image import ignore

# (pattern, why): Docker pattern syntax, matched at any depth of the folder
DEFAULTS: tuple[tuple[str, str], ...] = (
    (".git", "version control (.git/config can hold a token)"),
    (".hg", "version control"),
    (".svn", "version control"),
    (".env", "environment file (usually secrets)"),
    (".env.*", "environment file (usually secrets)"),
    ("*.pem", "key or certificate file"),
    ("*.key", "key file"),
    ("*.p12", "key store"),
    ("*.pfx", "key store"),
    ("id_rsa", "SSH private key"),
    ("id_dsa", "SSH private key"),
    ("id_ecdsa", "SSH private key"),
    ("id_ed25519", "SSH private key"),
    (".ssh", "SSH keys and configuration"),
    (".netrc", "login file (passwords)"),
    (".git-credentials", "git's stored credentials"),
    (".pypirc", "package-index login"),
    (".npmrc", "package-index login"),
    (".aws", "AWS credentials"),
    (".docker", "registry logins (.docker/config.json)"),
    (".kube", "Kubernetes credentials"),
    (".gnupg", "GnuPG keys"),
    (".config/gcloud", "gcloud credentials"),
    ("application_default_credentials.json", "Google application-default credentials"),
    ("credentials.json", "credentials file"),
    ("client_secret*.json", "OAuth client secret"),
    ("secrets.dev.yaml", "secrets file"),
)
_RULES = tuple((ignore.parse(f"**/{pattern}")[0], why) for pattern, why in DEFAULTS)
# the rules as one expression, group i+1 being rule i: one match per prefix instead of one per
# rule and prefix (the walk asks for every path of the folder; 27 rules cost 60 us a path)
_ANY_RULE = re.compile(
    "|".join(f"({p.regex.pattern.removeprefix('^').removesuffix('$')})" for p, _ in _RULES)
)
SNIFF_BYTES = 8192  # keys and credential files are small; their markers come first
SNIFF_MAX_SIZE = 1024 * 1024


def _prefixes(path: str) -> list[str]:
    parts = path.split("/")
    return ["/".join(parts[: i + 1]) for i in range(len(parts))]


def reason(path: str) -> str | None:
    """Why `path` (relative, slash-separated) is left out by default, or None."""
    first = len(_RULES)  # the first rule (in DEFAULTS' order) that matches any prefix
    for prefix in _prefixes(path):
        hit = _ANY_RULE.fullmatch(prefix)
        if hit is not None and hit.lastindex is not None:
            first = min(first, hit.lastindex - 1)
    return _RULES[first][1] if first < len(_RULES) else None


def included(path: str, includes: tuple[ignore.Pattern, ...]) -> bool:
    """Whether `path` or a folder above it is named by an include pattern (a `.dockerignore`
    exception or `--script-include`)."""
    candidates = _prefixes(path)
    return any(p.regex.match(c) for p in includes for c in candidates)


def includes_below(path: str, includes: tuple[ignore.Pattern, ...]) -> bool:
    """Whether an include pattern names something inside folder `path` (so the folder is
    walked and each of its entries judged on its own)."""
    prefix = f"{path}/"
    return any(p.text.lstrip("!/").startswith(prefix) for p in includes)


def includes(
    dockerignore: tuple[ignore.Pattern, ...], flags: tuple[str, ...]
) -> tuple[ignore.Pattern, ...]:
    """The include patterns: the `.dockerignore`'s exceptions and the `--script-include` ones."""
    given = ignore.parse("\n".join(flags))
    return tuple(p for p in dockerignore if p.exception) + given


def looks_secret(head: bytes) -> str | None:
    """What a file's first bytes look like, when they look like a key or a credential."""
    if b"-----BEGIN " in head and b"PRIVATE KEY-----" in head:
        return "a private key"
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError:
        return _binary_looks_secret(head)
    squeezed = "".join(text.split())
    if '"type":"service_account"' in squeezed and '"private_key"' in squeezed:
        return "a Google service-account key"
    if '"type":"authorized_user"' in squeezed and '"refresh_token"' in squeezed:
        return "Google user credentials"
    if "aws_secret_access_key" in text.lower():
        return "AWS credentials"
    return None


def _binary_looks_secret(head: bytes) -> str | None:
    """`looks_secret` for a head that is not UTF-8 (weights, archives; or text cut inside a
    character at SNIFF_BYTES), on the bytes: decoding 8 KiB of binary with replacement
    characters, squeezing and lowering it cost 190 us a file, most of a cold build's folder
    scan. The markers are ASCII, and an ASCII byte is the same character either way; what the
    bytes do not squeeze is whitespace other than ASCII's (U+001C-U+001F, non-ASCII spaces)
    between a JSON file's tokens, which JSON does not allow (RFC 8259 section 2: space, tab,
    LF, CR), so no loader reads such a file; the Kelvin sign that lowers to `k` is left to the
    text check after the ASCII pre-check."""
    squeezed = head.translate(None, b" \t\n\r\x0b\x0c")  # bytes.split()'s whitespace
    if b'"type":"service_account"' in squeezed and b'"private_key"' in squeezed:
        return "a Google service-account key"
    if b'"type":"authorized_user"' in squeezed and b'"refresh_token"' in squeezed:
        return "Google user credentials"
    if b"aws_secret_access_" in head.lower():
        text = head.decode("utf-8", "replace")
        if "aws_secret_access_key" in text.lower():
            return "AWS credentials"
    return None


def plan_note(withheld: tuple[tuple[str, str], ...]) -> dict[str, Any]:
    """What a step's details say about the paths left out by default (nothing when none)."""
    if not withheld:
        return {}
    return {
        "left_out": [
            {"path": path, "why": f"{why}; pack it with --script-include {path}"}
            for path, why in withheld
        ]
    }
