"""plan/profile.py and plan/stacks.py: pure values, no cluster."""

from __future__ import annotations

import pytest

from xcli.errors import UserError
from xcli.goodput import DEFAULT_PROFILER_PORT
from xcli.plan.profile import (
    CHUNK,
    DEFAULT_PORT,
    FROM_VERDICT,
    ProfileHost,
    ProfileRequestShape,
    choose,
    parse_hosts,
    plan_profile,
    split_stragglers,
    trace_args,
    with_hosts,
)
from xcli.plan.stacks import group_stacks, normalize, split_prefixed

HOSTS = [f"s{s}/w{w}" for s in range(2) for w in range(4)]


def test_the_default_port_is_the_helpers() -> None:
    assert DEFAULT_PORT == DEFAULT_PROFILER_PORT == 9999


def test_host_selection() -> None:
    assert choose(HOSTS, parse_hosts("all")) == tuple(HOSTS)
    assert choose(HOSTS, parse_hosts("s1/w0, s0/w3,s1/w0")) == ("s0/w3", "s1/w0")  # host order
    with pytest.raises(UserError, match="s2/w0 is not a host of this workload"):
        choose(HOSTS, parse_hosts("s2/w0"))
    for bad in ("", "3", "s0/w", "s0/w1,,s0/w2", "w3"):
        with pytest.raises(UserError, match="is not a host selection"):
            parse_hosts(bad)


def test_stragglers_are_the_verdict_plus_two_healthy_hosts() -> None:
    choice = parse_hosts("stragglers")
    assert choose(HOSTS, choice, ["s1/w2", "s0/w3"]) == ("s0/w0", "s0/w1", "s0/w3", "s1/w2")
    assert split_stragglers(HOSTS, ["s1/w2", "s0/w0"]) == (("s1/w2", "s0/w0"), ("s0/w1", "s0/w2"))
    assert split_stragglers(HOSTS, []) == ((), ("s0/w0", "s0/w1"))  # a baseline of two
    assert split_stragglers(HOSTS, ["w2"]) == (("s0/w2",), ("s0/w0", "s0/w1"))  # one slice
    assert split_stragglers(HOSTS, ["s9/w9"]) == ((), ("s0/w0", "s0/w1"))  # not running now
    # before the verdict is read (planning, the dry-run) every host is a candidate
    assert choose(HOSTS, choice, None) == tuple(HOSTS)


def test_a_straggler_plan_says_the_verdict_picks_at_run_time() -> None:
    shape = ProfileRequestShape("demo", "train", "gs://b/p", "s1", 2000)
    hosts = [ProfileHost(h, f"10.0.0.{n}", 9999) for n, h in enumerate(HOSTS)]
    (step,) = plan_profile(shape, hosts, "kube-exec", ("p0", "c", "ns"), "stragglers").steps
    assert step.details()["hosts_from"] == FROM_VERDICT
    assert "straggler verdict's hosts and 2 healthy ones (read when the capture runs, of 8" in (
        step.summary
    )
    narrowed = with_hosts(step, ["s1/w2", "s0/w0"])  # type: ignore[arg-type]
    assert [h.label for h in narrowed.hosts] == ["s0/w0", "s1/w2"] and narrowed.hosts_from is None
    (alone,) = plan_profile(shape, [hosts[0], hosts[6]], "kube-exec", ("p0", "c", "ns")).steps
    assert narrowed.command == alone.command  # type: ignore[attr-defined]  # what the exec sends


def test_one_trace_names_every_file_after_its_host() -> None:
    shape = ProfileRequestShape("demo", "train", "gs://b/p", "s1", 2000)
    hosts = [ProfileHost(h, f"10.0.0.{n}", 9999) for n, h in enumerate(HOSTS)]
    (step,) = plan_profile(shape, hosts, "ssh-forward").steps
    args = trace_args(step, hosts)  # type: ignore[arg-type]
    assert args["service_addr"].split(",")[:2] == ["10.0.0.0:9999", "10.0.0.1:9999"]
    assert args["options"]["override_hostnames"].split(",")[4] == "s1-w0"
    assert args["options"]["session_id"] == "s1" and args["duration_ms"] == 2000
    assert step.session_dir == "gs://b/p/plugins/profile/s1"  # type: ignore[attr-defined]
    many = [ProfileHost(f"s{n // 4}/w{n % 4}", "10.0.0.1", 9999) for n in range(2304)]
    (big,) = plan_profile(shape, many, "ssh-forward").steps
    assert [len(c) for c in big.chunks()] == [CHUNK] * 9  # type: ignore[attr-defined]
    with pytest.raises(UserError, match="no host to profile"):
        plan_profile(shape, [], "ssh-forward")


DUMP = """\
Process {pid}: python3 train.py
Python v3.11.2 (/usr/bin/python3.11)

Thread {pid} ({state}): "MainThread"
    {frame}
    train_step (train.py:20)
    <module> (train.py:24)
"""


def _dump(pid: int, frame: str, state: str = "idle") -> str:
    return DUMP.format(pid=pid, frame=frame, state=state)


def test_identical_places_group_whatever_the_ids_and_states() -> None:
    assert normalize(_dump(1, "f (a.py:1)")) == normalize(_dump(2, "f (a.py:1)", "active+gil"))
    dumps = {h: _dump(n, "psum_wait (jax.py:9)") for n, h in enumerate(HOSTS)}
    dumps["s1/w3"] = _dump(99, "next_batch (data.py:41)")
    report = group_stacks(dumps, {"s0/w0": "unreachable"})
    assert [(g.where, len(g.hosts)) for g in report.groups] == [
        ("psum_wait (jax.py:9)", 8 - 1),
        ("next_batch (data.py:41)", 1),
    ]
    assert report.lines() == [
        "7 hosts in psum_wait (jax.py:9)",
        "1 host in next_batch (data.py:41): s1/w3",
        "s0/w0: no stack (unreachable)",
    ]
    files = report.files()
    assert files["s1-w3.txt"] == dumps["s1/w3"] and files["s0-w0.txt"] == "no stack: unreachable\n"
    assert files["summary.txt"].splitlines()[-1] == "s0/w0: no stack (unreachable)"


def test_a_large_small_group_names_sixteen_hosts() -> None:
    dumps = {f"s{n}/w0": _dump(n, "a (x.py:1)") for n in range(40)}
    dumps.update({f"s{n}/w1": _dump(n, "b (x.py:2)") for n in range(20)})
    line = group_stacks(dumps).lines()[1]
    assert line.startswith("20 hosts in b (x.py:2): s0/w1, s1/w1") and line.endswith("and 4 more")


def test_the_terminal_form_splits_back_per_host() -> None:
    out = b"[s0/w1] Process 3: python3\n[s0/w0] a\n[s0/w1]     f (x.py:1)\n[s9/w9] stray\n"
    assert split_prefixed(out, ["s0/w0", "s0/w1"]) == {
        "s0/w0": "a",
        "s0/w1": "Process 3: python3\n    f (x.py:1)",
    }
