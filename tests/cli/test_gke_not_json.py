"""A proxy's HTML page answering `200 OK` instead of the GKE API: create, list, describe and
delete are one error line and a hint, exit 1, not a crash (exit 3) (issue 37, Faults).
The real container.v1 client over REST meets the page through `responses`."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.fake_compute import FakeNet
from tests.support.gke_live import Env, live
from xcli.cli.deps import Dependencies
from xcli.cli.errors import run_guarded
from xcli.cli.main import cli
from xcli.providers import DEFAULT
from xcli.providers.gke.provider import GkeProvider

CURRENT: dict[str, Env] = {}
REGISTRY = DEFAULT.with_target("gke", f"{__name__}:provider")
WHERE = ["--project", "my-project", "--zone", "us-east5-b"]


def provider() -> GkeProvider:
    return CURRENT["env"].provider


@pytest.fixture
def env() -> Iterator[Env]:
    with live(FakeNet()) as made:
        CURRENT["env"] = made
        yield made
    CURRENT.clear()


@pytest.mark.parametrize(
    ("args", "where"),
    [
        (["cluster", "list", *WHERE], "/clusters"),
        (["cluster", "describe", "--cluster", "demo", *WHERE], "/clusters/demo"),
        (["cluster", "delete", "--cluster", "demo", *WHERE, "--yes"], "/clusters/demo"),
        (
            ["cluster", "create", "--cluster", "demo", "--tpu-type", "v5litepod-16", *WHERE,
             "--spot", "--yes"],
            "/clusters",
        ),
    ],
)  # fmt: skip
def test_a_web_page_instead_of_json_is_one_line_exit_1(
    env: Env, args: list[str], where: str, capsys: pytest.CaptureFixture[str]
) -> None:
    for _ in range(20):  # every read of that path meets the page
        env.fake.drop("GET", where, "html")
    code = run_guarded(cli, [*args, "--provider", "gke"], debug=False, obj=_deps())
    _out, err = capsys.readouterr()
    assert code == 1, err
    assert "container.googleapis.com answered with something that is not the API's JSON" in err
    assert "check the network and HTTPS_PROXY" in err
    assert "Traceback" not in err


def _deps() -> Any:
    return Dependencies(providers=REGISTRY)
