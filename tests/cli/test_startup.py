"""`xcli --help`, catalog commands and argument errors load no cloud or Kubernetes SDK."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = (
    "google",
    "grpc",
    "proto",
    "lightkube",
    "kubernetes",
    "asyncssh",
    "httpx",
    "requests",
    "jinja2",
    "rich",
)

PROBE = """
import json, sys
from xcli.cli.main import main
try:
    main({argv!r})
except SystemExit:
    pass
heavy = sorted({{m.split('.')[0] for m in sys.modules}} & set({heavy!r}))
print(json.dumps(heavy), file=sys.stderr)
"""


def loaded_modules(argv: list[str]) -> list[str]:
    code = PROBE.format(argv=argv, heavy=HEAVY)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    heavy: list[str] = json.loads(proc.stderr.strip().splitlines()[-1])
    return heavy


@pytest.mark.parametrize(
    "argv",
    [
        ["--help"],
        ["cluster", "--help"],
        ["cluster", "create", "--help"],
        ["catalog", "show", "v6e-256", "--output", "json"],
        ["catalog", "show", "v6e-257"],
        ["cluster", "create", "--cluster", "Bad_Name", "--tpu-type", "v6e-8", "--spot"],
        ["cluster", "create", "--cluster", "c", "--tpu-type", "v6e-8", "--spot", "--flex-start"],
    ],
)
def test_no_sdk_on_the_fast_paths(argv: list[str]) -> None:
    heavy = loaded_modules(argv)
    # rich only draws tables for listings; nothing else heavy may load on these paths
    assert [m for m in heavy if m != "rich"] == []
