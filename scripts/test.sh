#!/usr/bin/env bash
# Installs everything the tests need, then runs the whole suite: lint, format check, strict
# types, tests. README command (b) and .ci/run both run exactly this script.
set -euo pipefail
cd "$(dirname "$0")/.."

# System commands the tests use, and the Debian packages that provide them: OpenSSH client and
# server (real sshd on loopback), openssl (a loopback TLS API server), dash (the remote wrapper
# is tested under a plain POSIX shell), setsid (util-linux). Only what is missing is installed.
missing=()
for pair in ssh:openssh-client scp:openssh-client ssh-keygen:openssh-client \
            sshd:openssh-server openssl:openssl dash:dash setsid:util-linux; do
  cmd=${pair%%:*} pkg=${pair#*:}
  if ! command -v "$cmd" >/dev/null 2>&1 && ! [ -x "/usr/sbin/$cmd" ]; then
    missing+=("$pkg")
  fi
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    echo "note: missing ${missing[*]} and cannot install here; the tests that need them skip" >&2
  fi
fi

python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e '.[test]'

.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/mypy
.venv/bin/pytest "$@"
