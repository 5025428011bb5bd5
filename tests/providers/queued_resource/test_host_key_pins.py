"""Issue 26 item 10 for queued resources: host keys pinned from the TPU API's guest attributes
are checked strictly by default, and pinned again from that source when a worker's address
changes (a repaired or recreated node); xcli says when it trusts keys, never silently."""

from __future__ import annotations

from pathlib import Path

import responses
from google.oauth2.credentials import Credentials

from tests.providers.queued_resource.test_provider import (
    BASE,
    GUEST,
    REF,
    FakeTime,
    node,
    qr,
)
from xcli.gateways.tpu.api import TpuGateway
from xcli.providers.queued_resource import access as tpu_access
from xcli.providers.queued_resource.provider import QueuedResourceProvider

OWNER = "xcli:my-proj/us-east5-b/boot/"


def _provider(said: list[str]) -> QueuedResourceProvider:
    fake = FakeTime()
    return QueuedResourceProvider(
        lambda zone: TpuGateway(zone, credentials=Credentials(token="t")),
        sleep=fake.sleep,
        clock=fake.clock,
        say=said.append,
    )


def _set_up(home: Path, pinned_ip: str) -> Path:
    """What `cluster create` leaves: the key, the access record, one worker's pin."""
    public = tpu_access.ensure_key(home / ".ssh" / "xcli_ed25519", create=True)
    tpu_access.remember_access("my-proj", "us-east5-b", "boot", "alice", "~/.ssh/xcli_ed25519")
    known = tpu_access.known_hosts_file()
    tpu_access.pin(known, OWNER, [("boot/w0", [pinned_ip, "34.0.0.2"], ["ssh-ed25519 AAAAOLD"])])
    responses.get(f"{BASE}/queuedResources/boot", json=qr("ACTIVE"))
    responses.get(f"{BASE}/nodes/boot", json=node({"ssh-keys": f"alice:{public}"}))
    return known


def test_pinned_clusters_are_checked_strictly_and_others_accept_new(isolated_home: Path) -> None:
    provider = _provider([])
    assert provider.ssh_access(REF).pinned is False  # xcli set up nothing: accept-new
    tpu_access.remember_access("my-proj", "us-east5-b", "boot", "alice", "~/.ssh/xcli_ed25519")
    assert provider.ssh_access(REF).pinned is True


@responses.activate
def test_a_moved_worker_is_pinned_again_from_guest_attributes(isolated_home: Path) -> None:
    known = _set_up(isolated_home, pinned_ip="10.0.0.9")  # the node now has 10.0.0.2
    guest = responses.post(f"{BASE}/nodes/boot:getGuestAttributes", json=GUEST)
    said: list[str] = []
    provider = _provider(said)
    workers = provider.workers(REF)
    assert [w.host for w in workers] == ["34.0.0.2"]
    assert guest.call_count == 0  # reading the workers changes nothing (a dry-run does that)
    provider.repin_moved(REF, workers)
    assert guest.call_count == 1
    assert known.read_text() == f"10.0.0.2,34.0.0.2 ssh-ed25519 AAAAC3NzaHOST {OWNER}boot/w0\n"
    assert len(said) == 1 and "pinned 1 host keys again" in said[0], said
    assert known.stat().st_mode & 0o777 == 0o600


@responses.activate
def test_workers_at_their_pinned_addresses_are_left_alone(isolated_home: Path) -> None:
    known = _set_up(isolated_home, pinned_ip="10.0.0.2")
    before = known.read_text()
    guest = responses.post(f"{BASE}/nodes/boot:getGuestAttributes", json=GUEST)
    said: list[str] = []
    provider = _provider(said)
    provider.repin_moved(REF, provider.workers(REF))
    assert guest.call_count == 0 and said == []
    assert known.read_text() == before  # the old key stays: only the source re-pins


@responses.activate
def test_a_cluster_xcli_did_not_set_up_is_never_pinned(isolated_home: Path) -> None:
    _set_up(isolated_home, pinned_ip="10.0.0.9")
    (isolated_home / "state" / "queued-resources" / "my-proj" / "us-east5-b" / "boot.json").unlink()
    guest = responses.post(f"{BASE}/nodes/boot:getGuestAttributes", json=GUEST)
    provider = _provider([])
    provider.repin_moved(REF, provider.workers(REF))
    assert guest.call_count == 0


def test_moved_compares_every_address_of_each_worker() -> None:
    pinned = {"n/w0": {"10.0.0.2", "34.0.0.2"}, "n/w1": {"10.0.0.3"}}
    current = {"n/w0": ["10.0.0.2", "34.0.0.2"], "n/w1": ["10.0.0.3", "34.0.0.9"], "n/w2": ["x"]}
    assert tpu_access.moved(current, pinned) == ["n/w1", "n/w2"]
    assert tpu_access.moved({"n/w0": ["10.0.0.2", ""]}, pinned) == []
