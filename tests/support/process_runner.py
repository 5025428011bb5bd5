"""A WorkerRunner that runs each worker's command as a real local process (no SSH).

Each worker gets the environment contract the local provider gives its workers.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

from xcli.plan.steps import WorkerCommand
from xcli.plan.vm_run import WorkerExit


class ProcessRunner:
    def __init__(self, env: Mapping[str, Mapping[str, str]], cwd: Path) -> None:
        self.env = env  # worker label -> its environment
        # The workers' login folder, where the process runtime keeps .xcli/workloads/NAME/pid.
        # Required: without it the scripts ran in pytest's folder and left .xcli/ in the checkout.
        self.cwd = cwd
        self.procs: list[subprocess.Popen[bytes]] = []
        self.stopped = 0

    def run(self, commands: Sequence[WorkerCommand]) -> Iterator[WorkerExit]:
        self.procs = [
            subprocess.Popen(list(c.argv), env=dict(self.env[c.worker]), cwd=self.cwd)
            for c in commands
        ]
        reported: set[int] = set()
        while len(reported) < len(self.procs):
            for n, proc in enumerate(self.procs):
                if n not in reported and proc.poll() is not None:
                    reported.add(n)
                    yield WorkerExit(commands[n].worker, proc.returncode)
            time.sleep(0.01)

    def stop(self, commands: Sequence[WorkerCommand]) -> None:
        self.stopped += 1
        for proc in self.procs:
            if proc.poll() is None:
                proc.kill()
            proc.wait()
        for c in commands:  # the stop commands end what the killed scripts had started
            subprocess.run(list(c.argv), env=dict(self.env[c.worker]), cwd=self.cwd, check=False)
