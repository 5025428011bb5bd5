"""`xcli workload profile`: which hosts, on which ports, and the one capture that covers them.
Pure: a plan of one `profile_capture` step that the dry-run prints and the live handler runs.

The capture is XProf's own: one `trace()` call of `xprof.convert._pywrap_profiler_plugin`
(what `python -m jax.collect_profile` and `xprofiler capture` call; openxla/xprof
`plugin/xprof/profile_plugin.py`, AI-Hypercomputer/cloud-diagnostics-xprof
`actions/capture_action.py`) with a comma-separated list of `host:port` addresses: every host
is traced at once, and each host's file lands in `<log dir>/plugins/profile/<session>/`. The
option `override_hostnames` names each file after its host (`s0-w3.xplane.pb`) instead of
the address it was reached at, which on VM-style clusters is a forwarded local port.

How the addresses are reached is the transport's business:
- `ssh-forward` (queued resources, local): one port forward per worker over SSH, the capture
  run on this machine (needs `xprof` here; nothing but the program's profiler server on the
  workers). docs/profile.md says why this and not one capture run on worker 0.
- `kube-exec` (GKE): one exec into the first pod, which runs the same `trace()` against
  every pod's IP (pods use the host's network); the image needs `xprof`, the log dir is gs://.
"""

from __future__ import annotations

import dataclasses
import json
import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from xcli.errors import UserError
from xcli.plan.fanout import Target
from xcli.plan.model import Plan, Step

Transport = Literal["ssh-forward", "kube-exec"]
DEFAULT_PORT = 9999  # xcli.goodput.DEFAULT_PROFILER_PORT (a test keeps them equal)
DEFAULT_DURATION_MS = 2000  # xprofiler capture's default
HEALTHY_FOR_COMPARISON = 2  # --hosts stragglers: the verdict's hosts plus this many healthy ones
# Hosts per trace() call: each call runs in its own process, all at once, so the addresses of
# one call, its gRPC channels and its forwarded ports stay bounded at 2,304 hosts.
CHUNK = 256
# XProf's tracer levels as the capture UI sends them (profile_plugin.py capture_route_impl);
# delay_ms: every host starts tracing at the same instant, this long after the request.
OPTIONS: Mapping[str, int] = {
    "host_tracer_level": 2,
    "device_tracer_level": 1,
    "python_tracer_level": 0,
    "delay_ms": 1000,
}
_LABEL = re.compile(r"s(\d+)/w(\d+)")


@dataclass(frozen=True)
class HostChoice:
    """--hosts as given: every host, a list of `sS/wW` labels, or the straggler verdict's."""

    kind: Literal["all", "list", "stragglers"]
    labels: tuple[str, ...] = ()


def parse_hosts(text: str) -> HostChoice:
    value = text.strip()
    if value == "all":
        return HostChoice("all")
    if value == "stragglers":
        return HostChoice("stragglers")
    labels = tuple(x.strip() for x in value.split(","))
    bad = next((x for x in labels if not _LABEL.fullmatch(x)), None)
    if not value or bad is not None:
        raise UserError(
            f"--hosts {text!r} is not a host selection",
            hint="write all, stragglers, or hosts such as s0/w3,s1/w0",
        )
    return HostChoice("list", tuple(dict.fromkeys(labels)))


def choose(
    everyone: Sequence[str], choice: HostChoice, verdict: Sequence[str] | None = None
) -> tuple[str, ...]:
    """The labels to profile, in the order of `everyone`. `stragglers` is one more selector:
    the verdict's hosts plus two healthy ones to compare them with; before the verdict is
    read (`verdict` None: planning, the dry-run) every host is a candidate."""
    if choice.kind == "all":
        return tuple(everyone)
    if choice.kind == "stragglers":
        if verdict is None:
            return tuple(everyone)
        slow, healthy = split_stragglers(everyone, verdict)
        wanted = set(slow) | set(healthy)
        return tuple(h for h in everyone if h in wanted)
    unknown = [h for h in choice.labels if h not in set(everyone)]
    if unknown:
        span = f"{everyone[0]} .. {everyone[-1]}" if everyone else "none"
        raise UserError(
            f"--hosts {unknown[0]} is not a host of this workload",
            hint=f"its hosts are {span}",
        )
    return tuple(h for h in everyone if h in set(choice.labels))


def host_label(worker: str) -> str:
    """A worker as the verdict names it (`w3` on one slice, as the VM runner labels it;
    `s1/w2`) in this module's form, `sS/wW`."""
    found = re.fullmatch(r"(?:s(\d+)/)?w(\d+)", worker.strip())
    return f"s{found.group(1) or 0}/w{found.group(2)}" if found else worker


def split_stragglers(
    everyone: Sequence[str], verdict: Sequence[str]
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(the verdict's hosts among `everyone`, in the verdict's order; the first
    HEALTHY_FOR_COMPARISON other hosts in host order): healthy hosts to compare them with."""
    named = {host_label(w) for w in verdict}
    slow = tuple(h for h in dict.fromkeys(map(host_label, verdict)) if h in set(everyone))
    healthy = tuple(h for h in everyone if h not in named)[:HEALTHY_FOR_COMPARISON]
    return slow, healthy


FROM_VERDICT = (
    "the straggler verdict, read when the capture runs (xcli workload stragglers): its "
    f"stragglers plus {HEALTHY_FOR_COMPARISON} healthy hosts for comparison, chosen from these"
)


def file_stem(label: str) -> str:
    """`s0/w3` -> `s0-w3`: the host's file name in the session folder (no '/')."""
    return label.replace("/", "-")


@dataclass(frozen=True)
class ProfileHost:
    """One host: its label, where its profiler server listens as seen from the host itself
    (ssh-forward: the far end of the forward) or from the capturing pod (kube-exec)."""

    label: str
    address: str
    port: int

    @property
    def endpoint(self) -> str:
        host = f"[{self.address}]" if ":" in self.address else self.address
        return f"{host}:{self.port}"


@dataclass(frozen=True)
class Route:
    """How to reach one host over SSH (ssh-forward): its worker's SSH target."""

    label: str
    target: Target


@dataclass(frozen=True, kw_only=True)
class ProfileCapture(Step):
    """Trace every host at once into one session folder."""

    kind: ClassVar[str] = "profile_capture"

    cluster: str
    workload: str
    transport: Transport
    hosts: tuple[ProfileHost, ...]
    log_dir: str
    session: str
    duration_ms: int
    options: Mapping[str, int] = field(default_factory=lambda: dict(OPTIONS))
    # kube-exec: the pod the capture runs in, and the exact command sent to its exec endpoint
    pod: str | None = None
    container: str | None = None
    namespace: str | None = None
    command: tuple[str, ...] = ()
    # "stragglers": `hosts` are the candidates; the live run keeps the verdict's (FROM_VERDICT)
    hosts_from: str | None = None

    @property
    def session_dir(self) -> str:
        return f"{self.log_dir.rstrip('/')}/plugins/profile/{self.session}"

    def chunks(self) -> list[tuple[ProfileHost, ...]]:
        return [self.hosts[i : i + CHUNK] for i in range(0, len(self.hosts), CHUNK)]

    def details(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "cluster": self.cluster,
            "workload": self.workload,
            "transport": self.transport,
            "hosts": [
                {"host": h.label, "profiler": h.endpoint, "file": f"{file_stem(h.label)}.xplane.pb"}
                for h in self.hosts
            ],
            "session_dir": self.session_dir,
            "trace": trace_args(self, list(self.hosts)),
        }
        if self.hosts_from == "stragglers":
            out["hosts_from"] = FROM_VERDICT
        if self.transport == "ssh-forward":
            out["forward"] = (
                "one SSH port forward per host to its profiler port; the trace runs on this "
                "machine against the forwarded ports (127.0.0.1:<local port>)"
            )
        else:
            out["exec"] = {
                "pod": self.pod,
                "container": self.container,
                "path": exec_path(self),
                "command": list(self.command),
            }
        return out


def trace_args(step: ProfileCapture, hosts: Sequence[ProfileHost]) -> dict[str, Any]:
    """The keyword form of the `trace()` call for `hosts` (their real endpoints; an SSH
    forward replaces each address with its local port, and nothing else)."""
    return {
        "service_addr": ",".join(h.endpoint for h in hosts),
        "logdir": step.log_dir,
        "worker_list": "",
        "include_dataset_ops": True,
        "duration_ms": step.duration_ms,
        "num_tracing_attempts": 1,
        "options": {
            **step.options,
            "session_id": step.session,
            "override_hostnames": ",".join(file_stem(h.label) for h in hosts),
        },
    }


TRACE_SCRIPT = (
    "import json,sys;from xprof.convert import _pywrap_profiler_plugin as p;"
    "a=json.loads(sys.argv[1]);p.trace(a['service_addr'],a['logdir'],a['worker_list'],"
    "a['include_dataset_ops'],a['duration_ms'],a['num_tracing_attempts'],a['options'])"
)


def exec_command(step: ProfileCapture) -> tuple[str, ...]:
    """What the capturing pod runs: python3 -c TRACE_SCRIPT ARGS (no shell, one argv)."""
    args = json.dumps(trace_args(step, list(step.hosts)), sort_keys=True, separators=(",", ":"))
    return ("python3", "-c", TRACE_SCRIPT, args)


def pod_exec_path(namespace: str, pod: str, container: str | None, command: Sequence[str]) -> str:
    """The pods/exec request's path and query, as the Kubernetes API takes it (every argv
    element one `command=` parameter; gateways/kube/exec.py sends exactly this)."""
    from urllib.parse import quote

    query = [f"container={quote(container, safe='')}"] if container else []
    query += [f"command={quote(arg, safe='')}" for arg in command]
    query += ["stdout=true", "stderr=true"]
    return f"/api/v1/namespaces/{namespace}/pods/{pod}/exec?" + "&".join(query)


def exec_path(step: ProfileCapture) -> str:
    assert step.pod is not None and step.namespace is not None
    return pod_exec_path(step.namespace, step.pod, step.container, step.command)


def open_command(log_dir: str) -> str:
    """The command that opens the session (every session under the log dir is a run)."""
    return f"xprof --logdir={shlex.quote(log_dir)} --port=8791"


@dataclass(frozen=True)
class ProfileRequestShape:
    """What planning needs besides the hosts."""

    cluster: str
    workload: str
    log_dir: str
    session: str
    duration_ms: int


def plan_profile(
    shape: ProfileRequestShape,
    hosts: Sequence[ProfileHost],
    transport: Transport,
    pod: tuple[str, str | None, str] | None = None,
    hosts_from: str | None = None,
) -> Plan:
    """One capture step over `hosts` (kube-exec: run in `pod`: name, container, namespace);
    `hosts_from="stragglers"`: the hosts are candidates, the verdict read at run time picks."""
    if not hosts:
        raise UserError("no host to profile", hint="check --hosts and the workload's state")
    step = ProfileCapture(
        id="profile",
        summary=f"trace {len(hosts)} host(s) of {shape.workload} for {shape.duration_ms} ms "
        f"into {shape.log_dir} (session {shape.session})",
        cluster=shape.cluster,
        workload=shape.workload,
        transport=transport,
        hosts=tuple(hosts),
        log_dir=shape.log_dir,
        session=shape.session,
        duration_ms=shape.duration_ms,
        pod=pod[0] if pod else None,
        container=pod[1] if pod else None,
        namespace=pod[2] if pod else None,
        hosts_from=hosts_from,
    )
    if hosts_from == "stragglers":
        picked = (
            f"the straggler verdict's hosts and {HEALTHY_FOR_COMPARISON} healthy ones (read "
            f"when the capture runs, of {len(hosts)} host(s))"
        )
        step = dataclasses.replace(
            step, summary=step.summary.replace(f"{len(hosts)} host(s)", picked, 1)
        )
    if transport == "kube-exec":
        step = _with_command(step)
    notes = (
        "the profiler port has no authentication: keep it inside the VPC (docs/profile.md)",
        f"open it with: {open_command(shape.log_dir)}",
    )
    return Plan(title=f"profile {shape.workload}", steps=(step,), notes=notes, max_parallel=1)


def _with_command(step: ProfileCapture) -> ProfileCapture:
    return dataclasses.replace(step, command=exec_command(step))


def with_hosts(step: ProfileCapture, labels: Sequence[str]) -> ProfileCapture:
    """The step narrowed to `labels` (the verdict's choice), its exec command made again."""
    keep = set(labels)
    narrowed = dataclasses.replace(
        step, hosts=tuple(h for h in step.hosts if h.label in keep), hosts_from=None
    )
    return _with_command(narrowed) if step.transport == "kube-exec" else narrowed


@dataclass
class ProfileResult:
    """What a capture produced: each host's file, each host that did not answer and why."""

    session_dir: str
    files: dict[str, str] = field(default_factory=dict)  # label -> path of its xplane.pb
    missing: dict[str, str] = field(default_factory=dict)  # label -> why there is no file
    open_command: str = ""
    seconds: float = 0.0
    # --hosts stragglers: which hosts the verdict named and which were taken for comparison
    chosen: Mapping[str, Any] | None = None

    @property
    def exit_code(self) -> int:
        return 0 if not self.missing else 1

    def to_json(self) -> dict[str, Any]:
        return {
            "session_dir": self.session_dir,
            "files": dict(self.files),
            "missing": dict(self.missing),
            "open": self.open_command,
            "seconds": round(self.seconds, 2),
            **({"hosts_from_verdict": dict(self.chosen)} if self.chosen is not None else {}),
        }
