"""The provider registry: capabilities match the classes, choices come from it, tests inject."""

from __future__ import annotations

import json
from typing import Any

import click
import pytest

from xcli.cli.deps import Dependencies
from xcli.cli.errors import run_guarded
from xcli.cli.main import cli
from xcli.errors import UserError
from xcli.gateways.kube.api import KubeApi
from xcli.plan.cluster import ClusterRef, ClusterSummary
from xcli.providers import DEFAULT, REGISTRY, Capabilities, Registry

# capability -> the methods a provider with it must have (providers/base.py protocols)
OPTIONAL = {
    "ssh": ("workers", "ssh_access"),
    "wait": ("plan_wait",),
    "observer": ("observe",),
    "live_checks": ("check_create",),
    "kubernetes": ("kube_api",),
    "user_keys": ("check_user_key",),
    "recover": ("capacity_lost", "plan_recover"),
}
CORE = ("plan_create", "plan_delete", "handlers", "list_clusters", "describe")


@pytest.mark.parametrize("name", list(REGISTRY))
def test_each_class_has_exactly_the_methods_its_capabilities_promise(name: str) -> None:
    provider = DEFAULT.get(name)
    caps = DEFAULT.capabilities(name)
    assert provider.name == name
    for method in CORE:
        assert callable(getattr(provider, method)), method
    assert (provider.terraform is not None) == caps.terraform
    for capability, methods in OPTIONAL.items():
        for method in methods:
            # a method without its capability would never be called: drift, not a feature
            assert hasattr(provider, method) == getattr(caps, capability), (name, method)


def test_typed_lookups_follow_capabilities() -> None:
    qr, local, gke = (DEFAULT.get(n) for n in ("queued-resource", "local", "gke"))
    assert DEFAULT.waiter("queued-resource", qr) is qr
    assert DEFAULT.waiter("local", local) is None
    assert DEFAULT.vm_access("gke", gke) is None
    assert DEFAULT.observer("gke", gke) is gke
    assert DEFAULT.live_checker("local", local) is local
    assert DEFAULT.cluster_access("gke", gke) is gke
    assert DEFAULT.cluster_access("queued-resource", qr) is None
    assert DEFAULT.cluster_access("local", local) is None
    assert DEFAULT.user_keys("queued-resource", qr) is qr
    assert DEFAULT.user_keys("local", local) is None


class OneApi:
    """A ClusterAccess double: what `with_cluster_access` hands out instead of the provider."""

    def kube_api(self, ref: ClusterRef) -> KubeApi:
        raise AssertionError("not called here")


def test_with_cluster_access_replaces_only_how_clusters_are_reached() -> None:
    access = OneApi()
    injected = DEFAULT.with_cluster_access("gke", access)
    gke = injected.get("gke")
    assert injected.cluster_access("gke", gke) is access
    assert injected.observer("gke", gke) is gke  # planning and the rest stay the provider's
    assert DEFAULT.cluster_access("gke", DEFAULT.get("gke")) is not access  # default untouched
    # kept through with_target, so a provider double and a fake cluster combine
    rebound = injected.with_target("local", f"{__name__}:ListsOne")
    assert rebound.cluster_access("gke", gke) is access
    with pytest.raises(ValueError, match="no Kubernetes"):
        DEFAULT.with_cluster_access("local", access)


def test_the_gke_access_opens_each_cluster_once() -> None:
    from xcli.providers.gke.provider import GkeProvider

    opened: list[tuple[str, str, str]] = []

    class Connector:
        def for_ref(self, project: str, region: str, name: str) -> KubeApi:
            opened.append((project, region, name))
            return KubeApi("203.0.113.9", None, lambda: "tok")

    provider = GkeProvider(connect=Connector())  # type: ignore[arg-type]
    ref = ClusterRef("demo", "my-proj", "us-east5-b", "gke")
    first = provider.kube_api(ref)
    assert provider.kube_api(ref) is first
    provider.kube_api(ClusterRef("other", "my-proj", "us-east5-b", "gke"))
    assert opened == [("my-proj", "us-east5", "demo"), ("my-proj", "us-east5", "other")]


def test_names_filter_by_capability_in_registry_order() -> None:
    assert DEFAULT.names() == ["gke", "queued-resource", "local"]
    assert DEFAULT.names(ssh=True) == ["queued-resource", "local"]
    assert DEFAULT.names(terraform=True) == ["gke", "queued-resource"]
    assert DEFAULT.names(cloud=False) == ["local"]
    assert DEFAULT.names(kubernetes=True) == ["gke"]
    assert DEFAULT.names(user_keys=True) == ["queued-resource"]
    assert DEFAULT.default() == "gke"  # the default --provider
    assert DEFAULT.default(wait=True) == "queued-resource"


def test_click_choices_come_from_the_registry() -> None:
    from xcli.cli import cluster, ssh, workload, workload_read

    def choices(command: click.Command) -> list[str]:
        option = next(p for p in command.params if p.name == "provider")
        assert isinstance(option.type, click.Choice)
        return list(option.type.choices)

    assert choices(cluster.create) == DEFAULT.names()
    assert choices(ssh.ssh) == DEFAULT.names(ssh=True)
    assert choices(workload.create) == DEFAULT.names()
    assert choices(workload_read.list_workloads) == DEFAULT.names()


@pytest.mark.parametrize("name", list(REGISTRY))
def test_each_provider_runs_registered_workload_kinds(name: str) -> None:
    from xcli.workload.backends import KindGateways
    from xcli.workload.kinds import KINDS, build

    caps = DEFAULT.capabilities(name)
    assert caps.workloads and set(caps.workloads) <= set(KINDS), caps.workloads
    # a VM kind needs to know how the provider's VMs mount storages; a JobSet never does
    assert (caps.vm_storage is not None) == ("vm" in caps.workloads), name
    assert caps.vm_workloads == ("vm" in caps.workloads)
    from xcli.workload.jobset.live import Live

    live = Live(lambda ref: pytest.fail(f"nothing connects to {ref.name}"))
    for kind in caps.workloads:
        built = build(kind, name, caps, KindGateways(live=live))
        for method in ("plan_create", "list", "status", "goodput", "logs", "wait", "plan_delete"):
            assert callable(getattr(built, method)), (name, kind, method)


def test_workload_kinds_per_provider() -> None:
    assert [DEFAULT.capabilities(n).workloads for n in DEFAULT.names()] == [
        ("jobset", "pathways"),  # issue 25: Pathways JobSets on GKE (--pathways)
        ("vm",),
        ("vm",),
    ]
    assert DEFAULT.names(plain_process=True) == ["local"]


def test_unknown_provider_is_a_user_error() -> None:
    with pytest.raises(UserError, match="unknown provider 'slurm'"):
        DEFAULT.get("slurm")


class ListsOne:
    """A provider double: `cluster list` prints what it returns."""

    name = "local"

    def list_clusters(self, project: str, zone: str | None) -> list[ClusterSummary]:
        return [ClusterSummary("fake", "local", "here", "v5litepod-16", 1, "on-demand", "OK")]


def test_the_cli_runs_with_an_injected_registry(capsys: Any) -> None:
    registry = DEFAULT.with_target("local", f"{__name__}:ListsOne")
    argv = ["cluster", "list", "--provider", "local", "--output", "json"]
    assert run_guarded(cli, argv, debug=False, obj=Dependencies(providers=registry)) == 0
    assert json.loads(capsys.readouterr().out)[0]["name"] == "fake"
    assert DEFAULT.get("local").__class__.__name__ == "LocalProvider"  # the default is untouched


def test_a_registry_is_data() -> None:
    entry = REGISTRY["local"]
    one = Registry({"only": entry})
    assert list(one) == ["only"]
    assert one.capabilities("only") == Capabilities(
        cloud=False,
        workloads=("vm",),
        vm_storage="folder",
        plain_process=True,
        ssh=True,
        live_checks=True,
        recover=True,
    )
