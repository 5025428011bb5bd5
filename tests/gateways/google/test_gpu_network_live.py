"""Live runs of the GPU network stack against a stateful fake of Compute Engine: the real
requests, creation order, idempotent re-runs, a partial failure resumed, and deletes."""

from __future__ import annotations

from dataclasses import replace

from tests.plan.gke_cases import CASES
from tests.support.gke_live import Recorder, live, ref_of
from xcli.errors import CloudError
from xcli.providers.gke.gpu_network_steps import OwnedNetworks

A3U = CASES["h200-141gb-8-x2-on-demand"][1]
A3HIGH = CASES["h100-80gb-8-x2-on-demand"][1]
STACK_A3U = {
    "networks": ["demo-net-1", "demo-rdma-net"],
    "subnetworks": sorted(["demo-sub-1"] + [f"demo-rdma-sub-{i}" for i in range(8)]),
    "firewalls": ["demo-internal-1"],
}


def inserts(log: list[str]) -> list[str]:
    return [line for line in log if line.startswith("insert ")]


def test_create_makes_networks_before_their_subnets_and_rules_and_stores_the_stack() -> None:
    with live() as env:
        result = env.run(env.plan(A3U), ref_of(A3U))
        assert result.ok, [(r.step.id, r.error) for r in result.results.values() if r.error]
        store = env.fake.net.store
        assert {k: sorted(v) for k, v in store.items()} == STACK_A3U
        log = env.fake.net.log
        # the fake refuses a subnet or rule whose network does not exist yet, so success is
        # the order; the log shows it too
        for sub in STACK_A3U["subnetworks"]:
            net = "demo-net-1" if sub == "demo-sub-1" else "demo-rdma-net"
            assert log.index(f"insert network {net}") < log.index(f"insert subnet {sub}")
        rdma = store["networks"]["demo-rdma-net"]
        assert rdma["networkProfile"].endswith("/global/networkProfiles/us-east5-b-vpc-roce")
        pool = env.fake.calls("POST", "/nodePools")[0][2]["nodePool"]
        assert len(pool["networkConfig"]["additionalNodeNetworkConfigs"]) == 9


def test_a_rerun_creates_nothing_twice_and_adopts_what_exists() -> None:
    with live() as env:
        assert env.run(env.plan(A3HIGH), ref_of(A3HIGH)).ok
        first = list(env.fake.net.log)
        recorder = Recorder()
        assert env.run(env.plan(A3HIGH), ref_of(A3HIGH), recorder).ok
        assert env.fake.net.log == first  # nothing created or changed again
    adopted = [line for line in recorder.lines if "adopting it" in line]
    assert len(adopted) == 4 + 4 + 4  # networks, subnets, firewall rules


def test_a_subnet_that_failed_is_created_on_rerun_and_nothing_else_is() -> None:
    with live() as env:
        env.fake.net.fail_next_insert("demo-rdma-sub-5")
        failed = env.run(env.plan(A3U), ref_of(A3U))
        assert not failed.ok
        error = failed.results["subnet-demo-rdma-sub-5"].error
        assert isinstance(error, CloudError) and "create subnet demo-rdma-sub-5" in error.message
        assert "demo-rdma-sub-5" not in env.fake.net.store["subnetworks"]
        assert env.fake.clusters == {}  # the cluster waits for every network step
        before = inserts(env.fake.net.log)
        assert env.run(env.plan(A3U), ref_of(A3U)).ok
        assert inserts(env.fake.net.log)[len(before) :] == ["insert subnet demo-rdma-sub-5"]
        assert {k: sorted(v) for k, v in env.fake.net.store.items()} == STACK_A3U


def test_an_existing_network_of_another_shape_is_not_adopted() -> None:
    with live() as env:
        env.fake.net.store["networks"]["demo-net-1"] = {
            "name": "demo-net-1",
            "mtu": 1460,
            "description": "made by hand",
        }
        result = env.run(env.plan(A3U), ref_of(A3U))
    error = result.results["network-demo-net-1"].error
    assert isinstance(error, CloudError)
    assert "already exists with another configuration" in error.message
    assert "mtu 1460, not 8896" in error.message


def test_delete_removes_the_cluster_then_subnets_and_rules_then_networks() -> None:
    ref = ref_of(A3U)
    with live() as env:
        assert env.run(env.plan(A3U), ref).ok
        env.fake.net.store["networks"]["demo-other"] = {"name": "demo-other", "description": ""}
        seen = env.provider.observe(ref, "delete")
        assert seen.networks == OwnedNetworks(
            networks=("demo-net-1", "demo-rdma-net"),
            subnets=tuple(sorted(STACK_A3U["subnetworks"])),
            firewalls=("demo-internal-1",),
        )
        plan = env.provider.plan_delete(ref, seen)
        net_delete = next(s for s in plan.steps if s.id == "delete-network-demo-rdma-net")
        assert "delete-subnet-demo-rdma-sub-0" in net_delete.after and "cluster" in net_delete.after
        result = env.run(plan, ref)
        assert result.ok, [(r.step.id, r.error) for r in result.results.values() if r.error]
        assert env.fake.clusters == {}
        assert list(env.fake.net.store["networks"]) == ["demo-other"]  # not xcli's: left alone
        assert env.fake.net.store["subnetworks"] == {} and env.fake.net.store["firewalls"] == {}
        log = [line for line in env.fake.net.log if line.startswith("delete ")]
        last_user = max(i for i, line in enumerate(log) if not line.startswith("delete network"))
        assert all(line.startswith("delete network") for line in log[last_user + 1 :])
        # a second delete: everything is gone, nothing is planned but the cluster (404 is done)
        again = env.provider.plan_delete(ref, env.provider.observe(ref, "delete"))
        assert [s.id for s in again.steps] == ["cluster"]
        assert env.run(again, ref).ok


def test_a_network_still_in_use_says_what_uses_it() -> None:
    ref = ref_of(A3U)
    with live() as env:
        assert env.run(env.plan(A3U), ref).ok
        user = "projects/my-project/zones/us-east5-b/instances/someone-elses-vm"
        env.fake.net.outside_users["demo-net-1"] = user
        result = env.run(env.provider.plan_delete(ref, env.provider.observe(ref, "delete")), ref)
        assert not result.ok
        error = result.results["delete-network-demo-net-1"].error
        assert isinstance(error, CloudError)
        assert "still in use" in error.message and user in error.message
        assert "delete what uses it first" in (error.hint or "")
        assert "demo-rdma-net" not in env.fake.net.store["networks"]  # the rest went


def test_delete_of_a_missing_subnet_counts_as_done() -> None:
    ref = ref_of(A3U)
    with live() as env:
        assert env.run(env.plan(A3U), ref).ok
        seen = env.provider.observe(ref, "delete")
        del env.fake.net.store["subnetworks"]["demo-sub-1"]  # gone meanwhile
        recorder = Recorder()
        assert env.run(env.provider.plan_delete(ref, seen), ref, recorder).ok
    assert "delete-subnet-demo-sub-1: already gone" in recorder.lines


def test_a4x_policy_is_created_and_deleted_like_tpu7x() -> None:
    spec = CASES["gb200-4-x18-reservation"][1]
    ref = ref_of(spec)
    with live() as env:
        assert env.run(env.plan(spec), ref).ok
        assert list(env.fake.policies) == ["demo-wp-1x72"]
        plan = env.provider.plan_delete(ref, env.provider.observe(ref, "delete"))
        assert "policy-demo-wp-1x72" in [s.id for s in plan.steps]
        assert env.run(plan, ref).ok
        assert env.fake.policies == {} and env.fake.net.store["networks"] == {}
    assert replace(spec, num_nodes=18) == spec


def test_deleting_a_tpu_cluster_lists_no_networks() -> None:
    """No Compute Engine list calls (nor their permissions) for a cluster that cannot own any."""
    spec = CASES["v6e-256-x2-spot"][1]
    ref = ref_of(spec)
    with live() as env:
        assert env.run(env.plan(spec), ref).ok
        seen = env.provider.observe(ref, "delete")
        assert seen.networks == OwnedNetworks()
        assert not env.fake.calls("GET", "/global/networks")
        assert env.run(env.provider.plan_delete(ref, seen), ref).ok
        # once the cluster is gone, leftovers are looked for
        env.provider.observe(ref, "delete")
        assert env.fake.calls("GET", "/global/networks")
