"""`--engine auto`: which engine runs a broadcast, and why.

The asyncssh engine makes first connections several times faster than OpenSSH (no process and
no post-quantum key generation per worker; docs/ssh.md, Speed), but it does not read everything
OpenSSH reads. So `auto` picks it only when nothing the user's OpenSSH setup asks for would be
lost, and otherwise picks OpenSSH and says why, in one line:

- no `ssh` client installed: asyncssh (nothing to compare);
- `--ssh-flag` values other than `-F FILE`: OpenSSH (they are OpenSSH options);
- every selected worker already has an open reusable connection (ControlMaster): OpenSSH,
  which runs the command over it without a handshake (faster than any new connection);
- otherwise `ssh -G` for the first worker, with xcli's own options, read once, and compared
  with `ssh -G -F /dev/null` (OpenSSH's built-in defaults): any setting that differs and is not
  in HONOURED or HARMLESS below (ProxyJump, ProxyCommand, PKCS11Provider, IdentityAgent,
  CertificateFile, HostName, Ciphers, KexAlgorithms, forwards, ...) means OpenSSH. Unknown
  settings count as differences: the choice errs towards OpenSSH.

https://man.openbsd.org/ssh#G
"""

from __future__ import annotations

import fnmatch
import os
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from xcli.gateways import process
from xcli.plan.fanout import Exec, SshSettings, Target, control_path, jump_host, openssh_argv

# Settings whose effect the asyncssh engine reproduces (SendEnv/SetEnv: it sends the same
# variables), or that xcli sets itself on both engines.
HONOURED = {
    "sendenv",
    "setenv",
    "batchmode",
    "connecttimeout",
    "serveraliveinterval",
    "serveralivecountmax",
    "stricthostkeychecking",
    "userknownhostsfile",
    "globalknownhostsfile",
    "updatehostkeys",
    "hashknownhosts",
    "checkhostip",
    "controlmaster",
    "controlpath",
    "controlpersist",
    "identitiesonly",
    "port",
    "user",
}
# Settings that change nothing about what reaches the worker or how it is authenticated:
# client cosmetics and tuning, an extra login method (GSSAPI: xcli logs in with a key), extra
# host-key sources that xcli's own known_hosts overrides.
HARMLESS = {
    "addkeystoagent",
    "loglevel",
    "logverbose",
    "syslogfacility",
    "visualhostkey",
    "escapechar",
    "enableescapecommandline",
    "tcpkeepalive",
    "compression",
    "ipqos",
    "connectionattempts",
    "rekeylimit",
    "obscurekeystroketiming",
    "gssapiauthentication",
    "gssapidelegatecredentials",
    "verifyhostkeydns",
    "usekeychain",
    "forwardx11trusted",
    "xauthlocation",
    "nohostauthenticationforlocalhost",
    "requiredrsasize",
}


@dataclass(frozen=True)
class EngineChoice:
    engine: str  # "openssh" | "asyncssh"
    # why OpenSSH, when it was picked over asyncssh; for asyncssh, a key exchange it lacks
    note: str | None
    send_env: tuple[str, ...] = ()  # NAME=VALUE the asyncssh engine sends (SendEnv, SetEnv)
    # the jump host (or IAP tunnel) the user's OpenSSH configuration routes through, if any
    through: str | None = None


def choose(
    targets: Sequence[Target], settings: SshSettings, environ: Mapping[str, str] | None = None
) -> EngineChoice:
    if shutil.which("ssh") is None:
        return EngineChoice("asyncssh", None)
    flags = _user_flags(settings.ssh_flags)
    if flags:
        return _openssh(f"--ssh-flag {flags[0]} is an OpenSSH option")
    if targets and settings.control_dir is not None:
        paths = [control_path(settings, t) for t in targets]
        if all(p is not None and p.exists() for p in paths):
            return _openssh("the selected workers' connections are open (reused by OpenSSH)")
    if not targets:
        return EngineChoice("asyncssh", None)
    target = targets[0]
    mine = _ssh_g(_options(target, settings), target.host)
    bare = _ssh_g([*_options(target, settings, config=False), "-F", "/dev/null"], target.host)
    if mine is None or bare is None:
        return _openssh(f"`ssh -G {target.host}` could not read your OpenSSH configuration")
    reason = difference(mine, bare, target)
    if reason is not None:
        return replace(_openssh(reason), through=config_through(mine))
    env = dict(os.environ if environ is None else environ)
    return EngineChoice("asyncssh", kex_note(mine), send_env=_env(mine, env))


def config_through(mine: Mapping[str, list[str]]) -> str | None:
    """The ProxyJump or ProxyCommand `ssh -G` reports, named as plan.fanout.jump_host does."""
    flags = [f"-o{key}={mine[key][0]}" for key in ("proxyjump", "proxycommand") if key in mine]
    return jump_host(flags)


def kex_note(mine: Mapping[str, list[str]]) -> str | None:
    """Said when asyncssh is picked although this OpenSSH client would offer a post-quantum
    hybrid key exchange first that asyncssh does not speak (OpenSSH 9.0 to 9.8: sntrup761):
    asyncssh offers ML-KEM hybrids first, which only newer servers (OpenSSH 9.9+) accept, and
    falls back to curve25519. The choice stays, but not silently."""
    import asyncssh.kex

    first = (mine.get("kexalgorithms") or [""])[0].split(",")[0]
    ours = [a.decode() for a in asyncssh.kex.get_default_kex_algs()]
    if first in ours or not any(pq in first for pq in ("sntrup", "mlkem")):
        return None
    hybrid = next((a for a in ours if "mlkem" in a or "sntrup" in a), None)
    offer = f"{hybrid} (post-quantum hybrid), then curve25519" if hybrid else "curve25519"
    return (
        f"engine asyncssh (fastest first connections): it offers {offer}; your OpenSSH would "
        f"offer {first} first (--engine openssh to use it)"
    )


def difference(
    mine: dict[str, list[str]], bare: dict[str, list[str]], target: Target
) -> str | None:
    """Why the user's configuration needs OpenSSH, or None."""
    for key in sorted(set(mine) | set(bare)):
        if key in HONOURED or key in HARMLESS:
            continue
        if key == "hostname" and mine.get(key) == [target.host]:
            continue
        if mine.get(key) != bare.get(key):
            shown = " ".join(mine.get(key, ["(unset)"]))[:60]
            return f"your OpenSSH configuration for {target.host} sets {key} {shown}"
    if target.user is None and mine.get("user") != bare.get("user"):
        return f"your OpenSSH configuration for {target.host} sets user {mine.get('user')}"
    return None


def _openssh(reason: str) -> EngineChoice:
    return EngineChoice("openssh", f"engine openssh: {reason} (--engine asyncssh to override)")


def _user_flags(flags: Sequence[str]) -> list[str]:
    """The --ssh-flag values other than `-F FILE` / `-FFILE` (which only choose the file)."""
    out, skip = [], False
    for i, flag in enumerate(flags):
        if skip:
            skip = False
            continue
        if flag == "-F" and i + 1 < len(flags):
            skip = True
            continue
        if flag.startswith("-F") and len(flag) > 2:
            continue
        out.append(flag)
    return out


def _options(target: Target, settings: SshSettings, config: bool = True) -> list[str]:
    """xcli's options for this worker, as its ssh argv has them (without the -F file when
    `config` is False)."""
    argv = list(openssh_argv(target, Exec("true"), settings))
    options = argv[1 : argv.index("--")]
    if config:
        return options
    out, skip = [], False
    for i, item in enumerate(options):
        if skip:
            skip = False
        elif item == "-F" and i + 1 < len(options):
            skip = True
        elif not (item.startswith("-F") and len(item) > 2):
            out.append(item)
    return out


def _ssh_g(options: list[str], host: str) -> dict[str, list[str]] | None:
    try:
        done = process.run(["ssh", "-G", *options, "--", host], timeout=10)
    except OSError:
        return None
    if done.returncode != 0:
        return None
    values: dict[str, list[str]] = {}
    for line in done.stdout.decode(errors="replace").splitlines():
        key, _, value = line.partition(" ")
        values.setdefault(key.lower(), []).append(value)
    return values


def _env(values: Mapping[str, list[str]], environ: Mapping[str, str]) -> tuple[str, ...]:
    patterns = values.get("sendenv", [])
    env = [
        f"{name}={value}"
        for name, value in sorted(environ.items())
        if any(fnmatch.fnmatchcase(name, p) for p in patterns)
    ]
    return tuple(env + values.get("setenv", []))
