#!/usr/bin/env bash
# Installs everything the tests need, then runs the whole suite: lint, format check, strict
# types, tests. README command (b) and .ci/run both run exactly this script.
set -euo pipefail
cd "$(dirname "$0")/.."

# System packages the tests use: OpenSSH client and server (real sshd on loopback).
if ! command -v sshd >/dev/null 2>&1 && ! [ -x /usr/sbin/sshd ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
      openssh-client openssh-server >/dev/null
  else
    echo "note: OpenSSH server not found and cannot be installed here; sshd tests will skip" >&2
  fi
fi

python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e '.[test]'

.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/mypy
.venv/bin/pytest "$@"
