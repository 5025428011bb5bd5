"""`xcli cluster preload-image` on the command line, against the in-memory Kubernetes API: the
dry-run JSON, progress on stderr and the closing line, --keep, errors with their hint. The use
case (timeouts, what is applied and deleted) is tested in tests/app/test_cluster_ops_use_case.py,
the DaemonSet in tests/providers/gke/test_preload.py."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from tests.support.cluster_access import registry_over
from tests.support.daemonset import IMAGE, PATH, controller
from tests.support.fakekube import FakeKube
from tests.support.workload_cluster import NOW, WHERE, FakeClock
from xcli.cli.deps import Dependencies
from xcli.cli.errors import run_guarded
from xcli.cli.main import cli
from xcli.gateways.backoff import Timing

CMD = ["cluster", "preload-image", IMAGE, *WHERE]


def run(
    fake: FakeKube, advance: Callable[[], None], args: list[str], capsys: Any
) -> tuple[int, str, str]:
    clock = FakeClock()

    def sleep(seconds: float, *_cancelled: object) -> None:
        clock.sleep(seconds)
        advance()

    providers, _ = registry_over(fake)
    timing = Timing(sleep=sleep, clock=clock.monotonic, now=lambda: NOW)
    deps = Dependencies(providers=providers, timing=timing)
    code = run_guarded(cli, args, debug=False, obj=deps)
    out, err = capsys.readouterr()
    return code, out, err


def test_preload_shows_progress_then_deletes_the_daemonset(capsys: Any) -> None:
    fake = FakeKube()
    code, out, err = run(fake, lambda: None, [*CMD, "--dry-run", "--output", "json"], capsys)
    assert code == 0, err
    plan = json.loads(out)["plan"]
    assert [s["kind"] for s in plan] == ["k8s_apply", "k8s_rollout", "k8s_delete"]
    assert fake.requests == []

    advance = controller(fake, [(0, 3), (2, 3), (3, 3)])
    code, out, err = run(fake, advance, CMD, capsys)
    assert code == 0, err
    (patch,) = fake.patches()
    assert patch.url.path == PATH
    assert json.loads(patch.content) == plan[0]["manifest"]
    assert [r.url.path for r in fake.requests if r.method == "DELETE"] == [PATH]
    assert PATH not in fake.objects
    assert "2/3 node(s) have the image" in err
    assert f"every accelerator node of cluster demo has {IMAGE}" in err


def test_keep_leaves_the_daemonset(capsys: Any) -> None:
    fake = FakeKube()
    code, _, err = run(fake, controller(fake, [(1, 1)]), [*CMD, "--keep"], capsys)
    assert code == 0, err
    assert PATH in fake.objects
    assert not [r for r in fake.requests if r.method == "DELETE"]


@pytest.mark.parametrize(
    ("extra", "message"),
    [(["--timeout", "10s"], "--timeout"), (["--cluster", "Bad_Name"], "cluster")],
)
def test_bad_input(extra: list[str], message: str, capsys: Any) -> None:
    fake = FakeKube()
    code, _, err = run(fake, lambda: None, [*CMD, *extra, "--dry-run"], capsys)
    assert code == 1 and message in err.splitlines()[0], err
    assert err.splitlines()[1].startswith("hint: ")
