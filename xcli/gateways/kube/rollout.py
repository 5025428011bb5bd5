"""Live handler for `k8s_rollout`: poll a DaemonSet until every node it selects runs it ready.

Progress is the controller's own count (status.numberReady / desiredNumberScheduled), reported
each time it changes; polls back off from 2 s to 15 s (xcli.gateways.backoff.poll).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

from xcli.errors import CloudError
from xcli.gateways.backoff import Sleep, Timing, event_sleep, growing, poll
from xcli.gateways.kube.api import KubeApi
from xcli.plan.contract import StepContext
from xcli.plan.gke.daemonset_steps import K8sRollout


def rollout_handler(
    api: Callable[[str], KubeApi],
    *,
    sleep: Sleep = event_sleep,
    clock: Callable[[], float] = time.monotonic,
) -> Callable[[K8sRollout, StepContext], Mapping[str, Any]]:
    timing = Timing(sleep=sleep, clock=clock)

    def handle(step: K8sRollout, ctx: StepContext) -> Mapping[str, Any]:
        kube = api(str(step.cluster))
        last = {"said": ""}

        def ready() -> dict[str, Any] | None:
            try:
                ds = kube.get("apps/v1", "DaemonSet", step.name, step.namespace)
            except CloudError as exc:
                if exc.retryable:
                    return None
                raise
            if ds is None:
                raise CloudError(
                    f"DaemonSet {step.namespace}/{step.name} is gone",
                    hint="something deleted it; run the same command again",
                )
            status = ds.get("status") or {}
            desired = int(status.get("desiredNumberScheduled") or 0)
            done = int(status.get("numberReady") or 0)
            seen = int(status.get("observedGeneration") or 0) >= int(
                (ds.get("metadata") or {}).get("generation") or 0
            )
            counted = seen and "desiredNumberScheduled" in status
            said = (
                f"{done}/{desired} node(s) have the image"
                if counted
                else "waiting for the DaemonSet controller"
            )
            if said != last["said"]:
                ctx.report(said)
                last["said"] = said
            if counted and done >= desired:
                return {"ready": done, "desired": desired}
            return None

        def too_long(elapsed: float) -> CloudError:
            return CloudError(
                f"DaemonSet {step.name} not ready on every node after {round(elapsed)}s: "
                f"{last['said'] or 'no status yet'}",
                hint="look at its pods (an image that cannot be pulled shows ErrImagePull); "
                "pass a longer --timeout, or run again",
                status="DeadlineExceeded",
            )

        answer: dict[str, Any] = poll(
            ready,
            delays=growing(2.0, 1.5, 15.0),
            timeout=step.timeout_seconds,
            timing=timing,
            cancelled=ctx.cancelled,
            on_timeout=too_long,
        )
        return answer

    return handle
