"""Where is every host stuck: py-spy's dump of a workload's Python processes on every host,
identical stacks grouped. Pure: the command each host runs, the parsing and the grouping.

`xcli workload stacks` prints the groups; the same command, run the same way
(`xcli/gateways/stacks.py:capture_stacks`), is what `--hang-after` saves beside the logs when
a run hangs (`StackReport.files()`: the file names and contents to write).

The command, per host (one shell string, run over SSH in the login directory):
- the workload's processes are the session the VM runtime started (its pid file
  `.xcli/workloads/NAME/pid`, "PID START"; xcli/workload/vm/plan.py), or on a Cloud TPU VM
  the container's (`docker top xcli-NAME`); every one is offered to py-spy (`py-spy dump
  --pid`, every thread; benfred/py-spy README), and the Python ones answer (the session
  leader is a shell);
- py-spy from PATH, else `~/.local/bin/py-spy`, else installed there with `pip install --user`
  (a static binary from PyPI); a host where none works says so on stderr (exit 4);
- retried once after a second when no process answered: right after a process starts, py-spy
  can fail to read its interpreter state (measured: the first try 1 s after start can fail).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from xcli.plan.model import Step

NO_PROCESS = 3  # exit code: the workload has no process on this host
NO_PY_SPY = 4  # exit code: py-spy is not there and could not be installed
NAMED = 16  # hosts named per small group before "and N more"


def dump_command(workload: str, cloud_vm: bool = False) -> str:
    """The shell command one host runs (see the module docstring). `cloud_vm`: a Cloud TPU
    VM, where the run is the container `xcli-NAME` when no pid file says otherwise (the VM
    runtime runs a container there) and py-spy needs root to attach (`sudo`; the image's
    Yama ptrace_scope is 1)."""
    folder = shlex.quote(f".xcli/workloads/{workload}")
    sudo = "sudo " if cloud_vm else ""
    container = shlex.quote(f"xcli-{workload}")
    find = (
        f"pids=$({sudo}docker top {container} -eo pid 2>/dev/null | tail -n +2); "
        if cloud_vm
        else "pids=; "
    )
    return (
        f"p=; read -r p _ 2>/dev/null < {folder}/pid || true; "
        f'if [ -n "$p" ]; then pids=$(ps -o pid= -s "$p" 2>/dev/null || echo "$p"); '
        f"else {find}fi; "
        'if [ -z "$pids" ]; then echo "xcli: workload '
        f'{workload} has no process here" >&2; exit {NO_PROCESS}; fi; '
        'spy=$(command -v py-spy || echo "$HOME/.local/bin/py-spy"); '
        'if [ ! -x "$spy" ]; then python3 -m pip install -q --user py-spy >/dev/null 2>&1; '
        'spy="$HOME/.local/bin/py-spy"; fi; '
        'if [ ! -x "$spy" ]; then echo "xcli: py-spy is not installed and pip could not '
        f'install it (pip install py-spy)" >&2; exit {NO_PY_SPY}; fi; '
        "dump() { ok=1; for q in $pids; do "
        f'{sudo}"$spy" dump --pid "$q" 2>/dev/null && ok=0; done; return $ok; }}; '
        'dump || { sleep 1; dump; } || { echo "xcli: py-spy read no Python process of '
        f'workload {workload}" >&2; exit 1; }}'
    )


_PROCESS = re.compile(r"^Process \d+: (.*)$")
_THREAD = re.compile(r'^Thread (?:0x)?[0-9A-Fa-f]+ \([^)]*\)(?:: "([^"]*)")?\s*$')


def normalize(dump: str) -> str:
    """py-spy's text without what differs between identical places: process and thread ids,
    thread states (active, idle, gil), the interpreter line. Frames stay as printed
    (function, file and line)."""
    out: list[str] = []
    for raw in dump.splitlines():
        line = raw.rstrip()
        if not line.strip() or line.startswith("Python v"):
            continue
        if (process := _PROCESS.match(line)) is not None:
            out.append(f"Process: {process.group(1)}")
        elif (thread := _THREAD.match(line)) is not None:
            out.append(f'Thread "{thread.group(1)}"' if thread.group(1) else "Thread")
        else:
            out.append(line)
    return "\n".join(out)


def where(stack: str) -> str:
    """The innermost frame of the first thread (py-spy prints innermost first): the short
    name of a group, e.g. `barrier (loop.py:12)`."""
    for line in stack.splitlines():
        if line.startswith("    "):
            return line.strip()
    return "no Python frame"


@dataclass(frozen=True)
class StackGroup:
    stack: str
    hosts: tuple[str, ...]

    @property
    def where(self) -> str:
        return where(self.stack)


@dataclass
class StackReport:
    groups: list[StackGroup] = field(default_factory=list)
    stacks: dict[str, str] = field(default_factory=dict)  # host -> py-spy's text as printed
    failed: dict[str, str] = field(default_factory=dict)  # host -> why there is no stack

    def lines(self) -> list[str]:
        """`3 hosts in barrier (loop.py:12)`, largest group first; smaller groups name their
        hosts; then the hosts with no stack."""
        out = []
        for n, g in enumerate(self.groups):
            count = f"{len(g.hosts)} host{'s' if len(g.hosts) != 1 else ''} in {g.where}"
            if n == 0 and len(self.groups) > 1:
                out.append(count)
                continue
            named = ", ".join(g.hosts[:NAMED])
            more = f" and {len(g.hosts) - NAMED} more" if len(g.hosts) > NAMED else ""
            out.append(f"{count}: {named}{more}")
        for host, why in self.failed.items():
            out.append(f"{host}: no stack ({why})")
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "groups": [
                {"where": g.where, "hosts": list(g.hosts), "stack": g.stack} for g in self.groups
            ],
            "stacks": dict(self.stacks),
            "failed": dict(self.failed),
        }

    def files(self) -> dict[str, str]:
        """One file per host (`s0-w3.txt`: its stack, or why there is none) and the summary,
        to save in a folder beside the logs."""
        out = {f"{h.replace('/', '-')}.txt": s for h, s in self.stacks.items()}
        out.update(
            {f"{h.replace('/', '-')}.txt": f"no stack: {w}\n" for h, w in self.failed.items()}
        )
        out["summary.txt"] = "\n".join(self.lines()) + "\n"
        return out


def group_stacks(dumps: Mapping[str, str], failed: Mapping[str, str] | None = None) -> StackReport:
    """Identical (normalized) stacks together; groups by size, largest first, then by their
    first host; `dumps` is host -> py-spy's text."""
    by_stack: dict[str, list[str]] = {}
    for host, text in dumps.items():
        by_stack.setdefault(normalize(text), []).append(host)
    groups = [StackGroup(stack, tuple(hosts)) for stack, hosts in by_stack.items()]
    groups.sort(key=lambda g: (-len(g.hosts), g.hosts[0]))
    return StackReport(groups, dict(dumps), dict(failed or {}))


def split_prefixed(output: bytes, labels: Sequence[str]) -> dict[str, str]:
    """The broadcast's terminal form (`[s0/w3] line`) back into each host's text."""
    texts: dict[str, list[str]] = {label: [] for label in labels}
    for raw in output.decode(errors="replace").splitlines():
        if raw.startswith("["):
            label, sep, rest = raw[1:].partition("] ")
            if sep and label in texts:
                texts[label].append(rest)
    return {label: "\n".join(lines) for label, lines in texts.items()}


def plan_stacks(
    cluster: str,
    workload: str,
    targets: Sequence[Any],
    settings: Any,
    engine: Any = "asyncssh",
    batch_size: int = 64,
    cloud_vm: bool = False,
) -> Any:
    """One Broadcast step (xcli/plan/fanout.py) running `dump_command` on every target."""
    from xcli.plan.fanout import Exec, plan_broadcast

    return plan_broadcast(
        cluster, targets, Exec(dump_command(workload, cloud_vm)), settings, engine=engine,
        batch_size=batch_size, timeout=120.0,
    )  # fmt: skip


def pod_dump_command() -> tuple[str, ...]:
    """What one pod runs for `workload stacks` on GKE (an exec argv, no shell on this side):
    every process of the container's pid namespace offered to py-spy (the training program is
    one of them), py-spy found or installed as on a VM, one retry a second later. py-spy needs
    the SYS_PTRACE capability in the container; without it every process refuses."""
    script = (
        'spy=$(command -v py-spy || echo "$HOME/.local/bin/py-spy"); '
        'if [ ! -x "$spy" ]; then python3 -m pip install -q --user py-spy >/dev/null 2>&1; '
        'spy="$HOME/.local/bin/py-spy"; fi; '
        'if [ ! -x "$spy" ]; then echo "xcli: py-spy is not in the image (pip install py-spy)" '
        f">&2; exit {NO_PY_SPY}; fi; "
        "dump() { ok=1; for q in $(ls /proc | grep -E '^[0-9]+$'); do "
        '[ "$q" = "$$" ] && continue; "$spy" dump --pid "$q" 2>/dev/null && ok=0; done; '
        "return $ok; }; "
        'dump || { sleep 1; dump; } || { echo "xcli: py-spy read no Python process (the '
        'container needs the SYS_PTRACE capability)" >&2; exit 1; }'
    )
    return ("sh", "-c", script)


@dataclass(frozen=True)
class PodTarget:
    label: str
    pod: str
    container: str | None


@dataclass(frozen=True, kw_only=True)
class PodStacks(Step):
    """One pods/exec of `pod_dump_command` per pod, at most `window` at once (GKE)."""

    kind: ClassVar[str] = "pod_exec"

    cluster: str
    namespace: str
    pods: tuple[PodTarget, ...]
    command: tuple[str, ...]
    window: int

    def paths(self) -> list[str]:
        from xcli.plan.profile import pod_exec_path

        return [pod_exec_path(self.namespace, p.pod, p.container, self.command) for p in self.pods]

    def details(self) -> dict[str, Any]:
        return {
            "cluster": self.cluster,
            "streams_at_once": self.window,
            "command": list(self.command),
            "pods": [
                {"host": p.label, "pod": p.pod, "path": path}
                for p, path in zip(self.pods, self.paths(), strict=True)
            ],
        }


def plan_pod_stacks(
    cluster: str, workload: str, namespace: str, pods: Sequence[PodTarget], window: int = 64
) -> Any:
    from xcli.plan.model import Plan

    step = PodStacks(
        id="stacks",
        summary=f"dump the Python stacks of {len(pods)} pod(s) of {workload} (py-spy, "
        f"through pods/exec, {window} at once)",
        cluster=cluster,
        namespace=namespace,
        pods=tuple(pods),
        command=pod_dump_command(),
        window=window,
    )
    return Plan(title=f"stacks {workload}", steps=(step,), max_parallel=1)
