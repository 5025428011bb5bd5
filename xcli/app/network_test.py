"""`xcli cluster test-network`: NCCL's bus-bandwidth test across a GPU cluster's nodes, run as
an ordinary JobSet workload (xcli/workload/jobset/network_test.py) and judged.

`plan` gives the test's plan (what --dry-run prints through Deps.run_plan); `run` submits a
planned test, waits, reads and judges it, and cleans up, running its plans with the quiet
runner the CLI hands in (progress on stderr, no summary: stdout carries the result).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from xcli.app.deps import Deps, Location
    from xcli.workload.jobset.live import Live
    from xcli.workload.jobset.network_test import Judged, NetworkTest, RunQuietly
    from xcli.workload.protocol import Context
    from xcli.workload.request import NetworkTestRequest


@dataclass(frozen=True)
class TestNetworkRequest:
    test: NetworkTestRequest
    where: Location


def plan(req: TestNetworkRequest, deps: Deps) -> NetworkTest:
    """The test as a planned `workload create` (the cluster's facts through deps.facts)."""
    from xcli.workload.jobset.network_test import plan_network_test

    return plan_network_test(_context(req, deps), _live(deps), req.test)


def run(req: TestNetworkRequest, test: NetworkTest, deps: Deps, quiet: RunQuietly) -> Judged:
    from xcli.workload.jobset.network_test import run_network_test

    return run_network_test(_context(req, deps), test.live, req.test, test, quiet)


def _live(deps: Deps) -> Live:
    from xcli.app.workload_facts import cluster_live

    return cluster_live(deps)


def _context(req: TestNetworkRequest, deps: Deps) -> Context:
    from xcli.app.where import ref_for
    from xcli.app.workload_facts import LIVE_FACTS
    from xcli.workload.protocol import Context

    facts = deps.facts if deps.facts is not None else LIVE_FACTS
    # the NCCL test is a JobSet: the provider whose clusters run that kind
    provider = next(n for n in deps.registry if "jobset" in deps.registry.capabilities(n).workloads)
    return Context(
        location=req.where,
        provider=provider,
        say=deps.say,
        facts=facts,
        cluster_ref=lambda cluster: ref_for(deps.registry, cluster, provider, req.where),
    )
