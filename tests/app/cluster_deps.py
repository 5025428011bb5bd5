"""Deps for the use cases that reach a cluster: an in-memory Kubernetes API through the
registry's ClusterAccess, a fake clock, plans run by the real executors (live, or dry into a
buffer), questions recorded and answered as `answer` says."""

from __future__ import annotations

import io
import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from tests.app.test_ssh_use_case import World
from tests.support.cluster_access import InMemoryAccess
from tests.support.fakekube import FakeKube
from tests.support.gke_live import Recorder
from tests.support.workload_cluster import NOW, FakeClock
from xcli.app.deps import Deps, Handlers
from xcli.app.record import DRY, LIVE
from xcli.errors import UserError
from xcli.execute.dry import DryRunExecutor
from xcli.execute.live import LiveExecutor
from xcli.execute.result import RunResult
from xcli.gateways.backoff import Timing
from xcli.plan.model import Plan
from xcli.plan.render import plan_json
from xcli.providers import DEFAULT, Registry
from xcli.storage.service import StorageGateways


@dataclass
class ClusterWorld:
    fake: FakeKube = field(default_factory=FakeKube)
    clock: FakeClock = field(default_factory=FakeClock)
    asked: list[str] = field(default_factory=list)
    plans: list[Plan] = field(default_factory=list)
    printed: io.StringIO = field(default_factory=io.StringIO)
    progress: Recorder = field(default_factory=Recorder)  # "step: message" lines
    results: list[RunResult] = field(default_factory=list)

    def deps(self, *, dry: bool = False, answer: bool = True, registry: Registry = DEFAULT) -> Deps:
        access = InMemoryAccess(self.fake)

        def run_plan(plan: Plan, handlers: Handlers) -> None:
            self.plans.append(plan)
            if dry:
                DryRunExecutor(self.printed, "json").run(plan)
                return
            result = LiveExecutor(handlers(), self.progress).run(plan)
            self.results.append(result)
            failed = result.by_status("failed")
            if failed and failed[0].error is not None:
                raise failed[0].error

        def confirm(question: str) -> None:
            self.asked.append(question)
            if not answer:
                raise UserError(f"{question} needs confirmation", hint="pass --yes to confirm")

        return replace(
            World().deps(Path("logs")),
            registry=registry.with_cluster_access("gke", access),
            run_plan=run_plan,
            confirm=confirm,
            require_answerable=lambda what: None,
            record=DRY if dry else LIVE,
            timing=Timing(sleep=self.clock.sleep, clock=self.clock.monotonic, now=lambda: NOW),
            # Google is not reached in these tests: a call to it fails (no credentials)
            storage_gateways=lambda: StorageGateways(
                sleep=self.clock.sleep, clock=self.clock.monotonic
            ),
        )

    def printed_steps(self) -> dict[str, Any]:
        """The last plan's steps by id, as `--dry-run -o json` prints them."""
        return {s["id"]: s for s in json.loads(plan_json(self.plans[-1]))["plan"]}
