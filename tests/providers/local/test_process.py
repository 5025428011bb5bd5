"""The cleanup scan recognises the local supervisor by its module in argv, under both names."""

from __future__ import annotations

import subprocess
import sys

import pytest

from xcli.providers.local import process

SLEEP = "import time; time.sleep(60)"


@pytest.mark.parametrize("module", [m.decode() for m in process.SUPERVISOR_MODULES])
def test_a_supervisor_is_found_by_its_module_name(module: str) -> None:
    # argv as `python -m MODULE DIR` leaves it: the module name is one element
    child = subprocess.Popen([sys.executable, "-c", SLEEP, module, "DIR"])
    other = subprocess.Popen([sys.executable, "-c", SLEEP, module + "x", "DIR"])
    try:
        assert process._is_supervisor(child.pid)
        assert not process._is_supervisor(other.pid)
    finally:
        for proc in (child, other):
            proc.kill()
            proc.wait()
