"""`cluster create --cpu-num-nodes N` (XPK's --default-pool-cpu-num-nodes): the system pool has
at least N nodes; fewer than its controllers need are raised, and the plan says so."""

from __future__ import annotations

from dataclasses import replace

from tests.plan.gke_cases import CASES
from xcli.providers.gke.bodies import cluster_body, system_pool
from xcli.providers.gke.options import GkeOptions
from xcli.providers.gke.planner import plan_create

SPEC = CASES["v6e-256-x2-spot"][1]


def test_more_nodes_are_taken_and_fewer_raised_with_a_note() -> None:
    sized = system_pool(SPEC).nodes
    more = replace(SPEC, options=GkeOptions(cpu_num_nodes=sized + 5))
    pool = cluster_body(more)["cluster"]["nodePools"][0]
    assert pool["initialNodeCount"] == sized + 5
    assert pool["autoscaling"]["minNodeCount"] == sized + 5
    assert not [n for n in plan_create(more).notes if "--cpu-num-nodes" in n]
    big = CASES["v6e-256-x32-spot"][1]
    need = system_pool(big).nodes
    assert need > 1
    fewer = replace(big, options=GkeOptions(cpu_num_nodes=1))
    assert system_pool(fewer).nodes == need
    (note,) = [n for n in plan_create(fewer).notes if "--cpu-num-nodes" in n]
    assert f"gets {need} x " in note
