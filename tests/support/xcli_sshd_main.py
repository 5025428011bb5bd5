"""`python -m tests.support.xcli_sshd_main ARGS`: the real xcli CLI, with the "local" provider
name bound to SshdProvider (workers = ports of a test sshd), in its own process, so tests see
real exit codes, real stdout/stderr bytes and real signals."""

from __future__ import annotations

import sys

from xcli.cli.main import main
from xcli.providers import DEFAULT

if __name__ == "__main__":
    main(sys.argv[1:], providers=DEFAULT.with_target("local", "tests.support.sshd:SshdProvider"))
