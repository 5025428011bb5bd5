"""The pure fan-out planner: selections, labels, and the exact ssh/scp argv."""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from xcli.errors import UserError
from xcli.plan.cluster import Worker
from xcli.plan.fanout import (
    Broadcast,
    Download,
    Exec,
    SshSettings,
    Target,
    Upload,
    control_path,
    jump_host,
    openssh_argv,
    parse_selection,
    plan_broadcast,
    select,
    targets_for,
)
from xcli.plan.remote import remote_command
from xcli.plan.render import plan_json, plan_text

SETTINGS = SshSettings(known_hosts=Path("kh"), identity=Path("key"), control_dir=Path("cm"))


@pytest.mark.parametrize(
    ("text", "count", "expected"),
    [
        ("all", 4, (0, 1, 2, 3)),
        ("2", 4, (2,)),
        ("0-2,7", 8, (0, 1, 2, 7)),
        (" 3 , 1-2 ,3", 4, (1, 2, 3)),
        ("ALL", 2, (0, 1)),
    ],
)
def test_selections(text: str, count: int, expected: tuple[int, ...]) -> None:
    assert parse_selection(text, count) == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("x", "--worker 'x' is not a worker selection"),
        ("1-", "--worker '1-' is not a worker selection"),
        ("", "--worker '' is not a worker selection"),
        ("-1", "--worker '-1' is not a worker selection"),
        ("3-1", "--worker range 3-1 goes backwards"),
        ("4", "--worker 4 is out of range"),
        ("0-9", "--worker 9 is out of range"),
    ],
)
def test_bad_selections_are_one_line_errors(text: str, message: str) -> None:
    with pytest.raises(UserError) as err:
        parse_selection(text, 4)
    assert err.value.message == message
    assert "\n" not in err.value.message and err.value.hint


def _workers(slices: int, per: int) -> list[Worker]:
    return [
        Worker(slice=s, index=i, host=f"10.0.{s}.{i}", internal_ip=f"192.168.{s}.{i}")
        for s in range(slices)
        for i in range(per)
    ]


def test_select_and_labels() -> None:
    everyone = _workers(2, 4)
    chosen = select(everyone, "1,3", "1")
    assert [(w.slice, w.index) for w in chosen] == [(1, 1), (1, 3)]
    # The cluster has two slices, so labels name the slice even when one is selected.
    labels = [t.label for t in targets_for(chosen, several_slices=True)]
    assert labels == ["s1/w1", "s1/w3"]
    one = _workers(1, 4)
    assert [t.label for t in targets_for(select(one, "all", "all"))] == ["w0", "w1", "w2", "w3"]
    with pytest.raises(UserError, match="--slice 2 is out of range"):
        select(everyone, "all", "2")


def test_internal_ip_and_user() -> None:
    (t,) = targets_for([_workers(1, 1)[0]], internal_ip=True, user="me")
    assert (t.host, t.user) == ("192.168.0.0", "me")
    with pytest.raises(UserError, match="has no internal IP"):
        targets_for([Worker(slice=0, index=0, host="h")], internal_ip=True)


def test_ssh_argv_passes_the_command_as_one_argument() -> None:
    command = "echo 'a b'; rm -rf $HOME\nnext"
    argv = openssh_argv(Target("w0", "10.0.0.1", 2222, "me"), Exec(command), SETTINGS)
    # One argument: the command inside the remote wrapper that stops it with the channel.
    assert argv[0] == "ssh" and argv[-3:] == (
        "--",
        "10.0.0.1",
        remote_command(command, keep_shell=True),
    )
    joined = " ".join(argv[:-1])
    for option in (
        "-o BatchMode=yes",
        "-o ConnectTimeout=10",
        "-o ServerAliveInterval=10",
        "-o ServerAliveCountMax=3",
        "-o StrictHostKeyChecking=accept-new",
        "-o UserKnownHostsFile=kh",
        "-o ControlMaster=auto",
        f"-o ControlPath={control_path(SETTINGS, Target('w0', '10.0.0.1', 2222, 'me'))}",
        "-o ControlPersist=300",
        "-i key -o IdentitiesOnly=yes",
        "-p 2222 -l me",
    ):
        assert option in joined


def test_user_flags_come_first_so_they_can_override_but_config_cannot() -> None:
    s = SshSettings(known_hosts=Path("kh"), ssh_flags=("-o", "ConnectTimeout=30"))
    argv = openssh_argv(Target("w0", "h"), Exec("x"), s)
    assert argv.index("ConnectTimeout=30") < argv.index("ConnectTimeout=10")


@pytest.mark.skipif(shutil.which("ssh") is None, reason="OpenSSH client not installed")
def test_a_host_star_block_cannot_switch_off_the_safety_options(tmp_path: Path) -> None:
    """`ssh -G` prints the configuration ssh would use, without connecting."""
    config = tmp_path / "config"
    config.write_text(
        "Host *\n  ConnectTimeout 0\n  ServerAliveInterval 0\n  BatchMode no\n"
        "  StrictHostKeyChecking no\n  UserKnownHostsFile /dev/null\n  ControlMaster no\n"
    )
    s = SshSettings(
        known_hosts=tmp_path / "kh", control_dir=tmp_path, ssh_flags=("-F", str(config))
    )
    argv = openssh_argv(Target("w0", "10.1.2.3", 2200), Exec("true"), s)
    shown = subprocess.run(
        [*argv[:-3], "-G", "--", "10.1.2.3"], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    for line in (
        "connecttimeout 10",
        "serveraliveinterval 10",
        "serveralivecountmax 3",
        "batchmode yes",
        "stricthostkeychecking accept-new",
        f"userknownhostsfile {tmp_path / 'kh'}",
        "controlmaster auto",
        "port 2200",
    ):
        assert line in shown


def test_scp_argv() -> None:
    t = Target("w0", "fe80::1", 22, "me")
    up = openssh_argv(t, Upload(("a.py", "b dir"), "~/job/", recursive=True), SETTINGS)
    assert (
        up[0] == "scp" and "-r" in up and up[-4:] == ("--", "a.py", "b dir", "me@[fe80::1]:~/job/")
    )
    down = openssh_argv(t, Download("~/out.log", "here.log"), SETTINGS)
    assert down[-3:] == ("--", "me@[fe80::1]:~/out.log", "here.log") and "-P" in down


def test_the_plan_prints_every_worker_argv_deterministically() -> None:
    targets = targets_for(_workers(2, 2))
    plan = plan_broadcast("demo", targets, Exec("hostname"), SETTINGS, batch_size=16)
    text = plan_text(plan)
    assert "[s1/w1] 10.0.1.1: ssh -T" in text and text.count(" -- ") == 4
    doc = plan_json(plan)
    assert doc == plan_json(
        plan_broadcast("demo", targets, Exec("hostname"), SETTINGS, batch_size=16)
    )
    assert '"engine": "openssh"' in doc and '"batch_size": 16' in doc


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [({"batch_size": 0}, "--batch-size must be at least 1")],
)
def test_bad_plans(kwargs: dict[str, int], message: str) -> None:
    with pytest.raises(UserError, match=message):
        plan_broadcast("d", targets_for(_workers(1, 1)), Exec("x"), SETTINGS, **kwargs)  # type: ignore[arg-type]
    with pytest.raises(UserError, match="--command is empty"):
        plan_broadcast("d", targets_for(_workers(1, 1)), Exec("  "), SETTINGS)


def test_control_socket_names_are_per_connection_and_fit_a_socket_address() -> None:
    a = Target("w0", "10.0.0.1", 22, "me")
    path = control_path(SETTINGS, a)
    assert path is not None and path.parent == Path("cm") and len(path.name) == 40
    assert control_path(SETTINGS, a) == path  # stable: the next run finds the same master
    others = {
        control_path(SETTINGS, Target("w0", "10.0.0.2", 22, "me")),
        control_path(SETTINGS, Target("w0", "10.0.0.1", 2222, "me")),
        control_path(SETTINGS, Target("w0", "10.0.0.1", 22, "you")),
        control_path(replace(SETTINGS, ssh_flags=("-J", "bastion")), a),
    }
    assert path not in others and len(others) == 4
    assert control_path(replace(SETTINGS, control_dir=None), a) is None


@pytest.mark.parametrize(
    ("flags", "through"),
    [
        (("-J", "bastion,inner"), "jump host bastion"),
        (("-Jme@bastion:2022",), "jump host me@bastion:2022"),
        (("-oProxyJump=bastion",), "jump host bastion"),
        (("-o", "ProxyJump bastion"), "jump host bastion"),
        (("-o", "proxyjump = bastion"), "jump host bastion"),
        (("-o", "ProxyCommand=gcloud compute start-iap-tunnel %h %p --listen-on-stdin"), "IAP"),
        (("-o", "ProxyCommand ssh -W %h:%p bastion"), "your ProxyCommand"),
        (("-o", "ProxyJump=none"), None),
        (("-F", "cfg", "-oKexAlgorithms=curve25519-sha256"), None),
        ((), None),
    ],
)
def test_jump_hosts_are_found_in_the_ssh_flags(flags: tuple[str, ...], through: str | None) -> None:
    assert jump_host(flags) == through


def test_through_a_jump_host_the_plan_caps_handshakes_and_says_so_in_one_line() -> None:
    targets = targets_for(_workers(1, 40))
    settings = replace(SETTINGS, ssh_flags=("-J", "bastion"))
    plan = plan_broadcast("demo", targets, Exec("hostname"), settings, batch_size=64)
    step = plan.steps[0]
    assert isinstance(step, Broadcast)
    assert (step.through, step.handshakes, step.batch_size) == ("jump host bastion", 10, 64)
    assert plan.notes == (
        "through jump host bastion: at most 10 SSH handshakes at once (its sshd drops more "
        "under the default MaxStartups 10:30:100); xcli backs off if it refuses",
    )
    assert '"handshakes_at_once": 10' in plan_json(plan)
    assert "at most 10 SSH handshakes" in plan_text(plan)
    # a smaller window is its own cap; a jump host named by the ssh config is passed in
    small = plan_broadcast("d", targets, Exec("x"), SETTINGS, batch_size=4, through="IAP")
    assert small.steps[0].details()["handshakes_at_once"] == 4
    assert plan_broadcast("d", targets, Exec("x"), SETTINGS).notes == ()
