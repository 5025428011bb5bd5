#!/usr/bin/env bash
# Installs everything the tests need, then runs the whole suite: lint, format check, strict
# types, tests. README command (b) and .ci/run both run exactly this script.
set -euo pipefail
cd "$(dirname "$0")/.."

# System commands the tests use, and the Debian packages that provide them: OpenSSH client and
# server (real sshd on loopback), openssl (a loopback TLS API server), dash (the remote wrapper
# is tested under a plain POSIX shell), setsid, unshare and nsenter (util-linux: unshare gives
# the local provider's storages their bind mounts, made with mount, and each emulated worker its
# own hostname, whose namespaces every SSH command enters with nsenter), docker-registry (CNCF
# Distribution 2.8, the real OCI registry the image-build tests start on loopback), ps (procps:
# `xcli workload stacks` finds a workload's processes on a worker with it), chromium (headless,
# the screenshot of `xcli workload report`'s page); and Python's venv module, which Debian ships
# apart from python3. Only what is missing is installed (as root, or with sudo).
command_missing() {
  ! command -v "$1" >/dev/null 2>&1 && ! [ -x "/usr/sbin/$1" ]
}
missing_packages() {
  local pair cmd pkg
  for pair in ssh:openssh-client scp:openssh-client ssh-keygen:openssh-client \
              sshd:openssh-server openssl:openssl dash:dash setsid:util-linux \
              unshare:util-linux nsenter:util-linux mount:mount docker-registry:docker-registry ps:procps \
              chromium:chromium; do
    cmd=${pair%%:*} pkg=${pair#*:}
    if command_missing "$cmd"; then echo "$pkg"; fi
  done
  if ! python3 -c 'import ensurepip, venv' >/dev/null 2>&1; then echo python3-venv; fi
}
mapfile -t missing < <(missing_packages | sort -u)
if [ ${#missing[@]} -gt 0 ]; then
  as_root=()
  if [ "$(id -u)" != 0 ] && command -v sudo >/dev/null 2>&1; then as_root=(sudo -n); fi
  if command -v apt-get >/dev/null 2>&1 && { [ "$(id -u)" = 0 ] || [ ${#as_root[@]} -gt 0 ]; }; then
    { "${as_root[@]}" apt-get update -qq &&
      "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; } ||
      echo "note: installing ${missing[*]} failed" >&2
  fi
  mapfile -t missing < <(missing_packages | sort -u)
  if [ ${#missing[@]} -gt 0 ]; then
    # In CI a missing package must not turn into silently skipped tests.
    if [ -n "${CI:-}" ]; then
      echo "error: could not install ${missing[*]}; the tests need them" >&2
      exit 1
    fi
    echo "note: missing ${missing[*]} and cannot install here; the tests that need them skip" >&2
  fi
fi

python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e '.[test]'

.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/mypy
.venv/bin/lint-imports --no-cache
.venv/bin/pytest "$@"
