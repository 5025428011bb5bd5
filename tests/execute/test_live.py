"""The live executor: ordering, bounded concurrency, lanes, failure isolation, refs, Ctrl-C."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

import pytest

from xcli.errors import CloudError, Interrupted
from xcli.execute.live import LiveExecutor
from xcli.plan.contract import StepContext, StepResult
from xcli.plan.model import Plan, Ref, Step
from xcli.plan.steps import LocalAction


def act(sid: str, after: tuple[str, ...] = (), lane: str | None = None, **args: Any) -> LocalAction:
    return LocalAction(id=sid, summary=sid, action="test", after=after, lane=lane, args=args)


class Recorder:
    """A handler that records order and concurrency, and fails or blocks on request."""

    def __init__(self, fail: set[str] = frozenset(), gate: threading.Event | None = None) -> None:
        self.fail = set(fail)
        self.gate = gate
        self.order: list[str] = []
        self.running = 0
        self.peak = 0
        self.peak_lane: dict[str, int] = {}
        self.lanes: dict[str, int] = {}
        self.lock = threading.Lock()
        self.seen_args: dict[str, Mapping[str, Any]] = {}

    def __call__(self, step: LocalAction, ctx: StepContext) -> Mapping[str, Any]:
        with self.lock:
            self.order.append(step.id)
            self.seen_args[step.id] = step.args
            self.running += 1
            self.peak = max(self.peak, self.running)
            if step.lane:
                self.lanes[step.lane] = self.lanes.get(step.lane, 0) + 1
                self.peak_lane[step.lane] = max(
                    self.peak_lane.get(step.lane, 0), self.lanes[step.lane]
                )
        try:
            if self.gate is not None:
                self.gate.wait(5)
            ctx.report(f"working on {step.id}")
            if step.id in self.fail:
                raise CloudError(f"{step.id} broke", hint="try again")
            return {"value": f"out-{step.id}"}
        finally:
            with self.lock:
                self.running -= 1
                if step.lane:
                    self.lanes[step.lane] -= 1


class Events:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def started(self, step: Step) -> None:
        self.lines.append(f"start {step.id}")

    def progress(self, step: Step, message: str) -> None:
        self.lines.append(f"progress {step.id} {message}")

    def finished(self, result: StepResult) -> None:
        self.lines.append(f"{result.status} {result.step.id}")


def test_dependencies_run_in_order_and_outputs_flow_through_refs() -> None:
    plan = Plan("p", (act("a"), act("b", ("a",), x=Ref("a", "value")), act("c", ("b",))))
    handler = Recorder()
    result = LiveExecutor({"local": handler}).run(plan)
    assert result.ok
    assert handler.order == ["a", "b", "c"]
    assert handler.seen_args["b"] == {"x": "out-a"}
    assert result.outputs()["c"] == {"value": "out-c"}


def test_independent_steps_run_concurrently_within_the_bound() -> None:
    gate = threading.Event()
    steps = tuple(act(f"s{i}") for i in range(6))
    handler = Recorder(gate=gate)
    timer = threading.Timer(0.3, gate.set)
    timer.start()
    LiveExecutor({"local": handler}).run(Plan("p", steps, max_parallel=4))
    timer.cancel()
    assert handler.peak == 4  # four held at the gate together, never a fifth


def test_lane_limit_bounds_a_group_of_steps() -> None:
    gate = threading.Event()
    pools = tuple(act(f"pool{i}", lane="pools") for i in range(5))
    other = (act("other"),)
    handler = Recorder(gate=gate)
    timer = threading.Timer(0.3, gate.set)
    timer.start()
    result = LiveExecutor({"local": handler}).run(
        Plan("p", pools + other, max_parallel=8, lane_limits={"pools": 2})
    )
    timer.cancel()
    assert result.ok
    assert handler.peak_lane["pools"] == 2
    assert handler.peak == 3  # two pools plus the unrelated step


def test_failure_skips_dependents_and_independent_steps_finish() -> None:
    plan = Plan(
        "p",
        (
            act("cluster"),
            act("pool0", ("cluster",)),
            act("pool1", ("cluster",)),
            act("pool1-ready", ("pool1",)),
            act("setup", ("pool0", "pool1-ready")),
            act("pool2", ("cluster",)),
        ),
    )
    events = Events()
    result = LiveExecutor({"local": Recorder(fail={"pool1"})}, events).run(plan)
    assert not result.ok
    status = {sid: r.status for sid, r in result.results.items()}
    assert status == {
        "cluster": "ok",
        "pool0": "ok",
        "pool1": "failed",
        "pool1-ready": "skipped",
        "setup": "skipped",
        "pool2": "ok",
    }
    assert result.results["setup"].reason == "not run: pool1 failed"
    assert isinstance(result.results["pool1"].error, CloudError)
    assert list(result.results) == [s.id for s in plan.steps]  # plan order, whatever ran first
    assert "progress pool0 working on pool0" in events.lines
    assert "failed pool1" in events.lines


def test_ctrl_c_cancels_what_has_not_started_and_keeps_what_ran() -> None:
    class Interrupting(Recorder):
        def __call__(self, step: LocalAction, ctx: StepContext) -> Mapping[str, Any]:
            out = super().__call__(step, ctx)
            if step.id == "b":
                raise KeyboardInterrupt
            return out

    # KeyboardInterrupt in a worker thread surfaces in the executor like Ctrl-C does
    plan = Plan("p", (act("a"), act("b", ("a",)), act("c", ("b",))))
    with pytest.raises(Interrupted):
        LiveExecutor({"local": Interrupting()}).run(plan)


def test_ctrl_c_in_the_main_thread_returns_a_partial_result(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import concurrent.futures

    import xcli.execute.live as live

    real_wait = concurrent.futures.wait
    calls = {"n": 0}

    def wait_then_interrupt(*args: Any, **kwargs: Any) -> Any:
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt
        return real_wait(*args, **kwargs)

    monkeypatch.setattr(live, "wait", wait_then_interrupt)
    plan = Plan("p", (act("a"), act("b", ("a",)), act("c", ("b",))))
    executor = LiveExecutor({"local": Recorder()})
    with pytest.raises(Interrupted) as err:
        executor.run(plan)
    assert executor.cancelled.is_set()
    partial = err.value.partial
    assert partial.results["a"].status == "ok"
    assert partial.results["c"].status == "cancelled"
