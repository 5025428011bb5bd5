"""The preload DaemonSet as the API server holds it, and a stand-in for its controller."""

from __future__ import annotations

from collections.abc import Callable

from tests.support.fakekube import FakeKube
from xcli.providers.gke.preload import daemonset_name

IMAGE = "us-docker.pkg.dev/my-proj/repo/trainer:1"
PATH = f"/apis/apps/v1/namespaces/default/daemonsets/{daemonset_name(IMAGE)}"


def controller(fake: FakeKube, counts: list[tuple[int, int]]) -> Callable[[], None]:
    """What the DaemonSet controller would write, one step further at every poll."""
    left = list(counts)

    def advance() -> None:
        obj = fake.objects.get(PATH)
        if obj is not None and left:
            ready, desired = left.pop(0) if len(left) > 1 else left[0]
            obj["metadata"]["generation"] = 1
            obj["status"] = {
                "observedGeneration": 1,
                "desiredNumberScheduled": desired,
                "numberReady": ready,
                "currentNumberScheduled": desired,
                "numberMisscheduled": 0,
            }

    return advance
