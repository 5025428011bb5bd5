"""Cloud Console links after a live GKE create: XPK's URL forms, in the live summary (text and
JSON), never in the dry-run's plan."""

from __future__ import annotations

import json
from urllib.parse import unquote

import pytest

from tests.plan.gke_cases import CASES
from tests.support.gke_live import live, ref_of
from tests.support.workload_cluster import WHERE, Cluster, cluster, set_up
from xcli.cli.progress import render_summary
from xcli.plan.gke.console import cluster_links, workload_links

__all__ = ["cluster"]  # the fixture

CONSOLE = "https://console.cloud.google.com"


def test_cluster_links_are_xpks() -> None:
    assert cluster_links("my-project", "us-east5", "demo") == {
        "cluster": f"{CONSOLE}/kubernetes/clusters/details/us-east5/demo/details"
        "?project=my-project",
        "workloads": f"{CONSOLE}/kubernetes/workload/overview?project=my-project"
        "&pageState=((gke%2Fus-east5%2Fdemo))",
    }


def test_workload_links_name_the_workload_and_query_its_first_pod() -> None:
    links = workload_links("p1", "us-east5", "demo", "team-a", "run-1", "run-1-slice-0-0-")
    assert links["workload"] == (
        f"{CONSOLE}/kubernetes/service/us-east5/demo/team-a/run-1/details?project=p1"
    )
    head, _, rest = links["logs"].partition(";query=")
    assert head == f"{CONSOLE}/logs/query"
    query, _, tail = rest.partition(";storageScope=")
    assert tail == "project;duration=P1D?project=p1"
    assert "\n" not in query and " " not in query  # URL-quoted
    assert unquote(query).splitlines() == [
        'resource.type="k8s_container"',
        'resource.labels.project_id="p1"',
        'resource.labels.location="us-east5"',
        'resource.labels.cluster_name="demo"',
        'resource.labels.namespace_name="team-a"',
        'resource.labels.pod_name:"run-1-slice-0-0-"',
        "severity>=DEFAULT",
    ]


def test_a_live_gke_create_prints_the_cluster_links(capsys: pytest.CaptureFixture[str]) -> None:
    _, spec = CASES["v6e-256-x2-spot"]
    with live() as env:
        plan = env.plan(spec)
        result = env.run(plan, ref_of(spec))
    assert result.ok
    assert result.links == cluster_links("my-project", "us-east5", "demo")
    render_summary(result, "json")
    assert json.loads(capsys.readouterr().out)["links"] == result.links
    render_summary(result, "text")
    text = capsys.readouterr().out.splitlines()
    assert text[-2:] == [f"  {name}: {url}" for name, url in result.links.items()]


def test_a_live_workload_create_prints_the_workload_and_logs_links(
    cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    set_up(cluster.fake)
    argv = ["workload", "create", *WHERE, "--workload", "train-1", "--command", "python3 x.py"]
    argv += ["--docker-image", "us-docker.pkg.dev/my-proj/repo/trainer:1", "--output", "json"]
    code, out, err = cluster.run(argv, capsys)
    assert code == 0, err
    links = json.loads(out)["links"]
    assert set(links) == {"workload", "logs"}
    assert links["workload"].startswith(f"{CONSOLE}/kubernetes/service/us-east5/demo/default/")
    assert "train-1-slice-0-0-" in unquote(links["logs"])
    dry = [*argv, "--tpu-type", "v6e-256", "--num-slices", "2", "--dry-run"]
    code, out, err = cluster.run(dry, capsys)
    assert code == 0, err
    assert "links" not in json.loads(out)  # the dry-run prints the requests only
