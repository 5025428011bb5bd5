"""The gateway on lightkube's public API: every kind a generic resource, answers as sent."""

from __future__ import annotations

import pytest

from tests.support.fakekube import FakeKube
from xcli.errors import CloudError
from xcli.gateways.kube.api import KubeApi, builtin_model, resource_for


def api_for(fake: FakeKube) -> KubeApi:
    return KubeApi("203.0.113.9", None, lambda: "tok", transport=fake.transport())


def test_built_in_answers_are_the_servers_json() -> None:
    """lightkube's models would drop a field they do not know and refuse an object missing a
    required one; the gateway hands back what the server sent."""
    fake = FakeKube()
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "w-0", "namespace": "default"},
        "status": {"phase": "Running", "fieldFromANewerServer": {"x": 1}},
    }
    fake.put("/api/v1/namespaces/default/pods/w-0", pod)
    assert api_for(fake).get("v1", "Pod", "w-0", "default") == pod
    assert api_for(fake).list("v1", "Pod", "default") == [pod]


def test_strict_field_validation_only_on_applies() -> None:
    fake = FakeKube()
    api = api_for(fake)
    api.apply({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "m"}})
    api.get("v1", "ConfigMap", "m", "default")
    api.delete("v1", "ConfigMap", "m", "default")
    assert [r.url.params.get("fieldValidation") for r in fake.requests] == ["Strict", None, None]


@pytest.mark.parametrize(
    ("api_version", "kind", "module"),
    [
        ("v1", "ConfigMap", "core_v1"),
        ("apps/v1", "Deployment", "apps_v1"),
        ("apiextensions.k8s.io/v1", "CustomResourceDefinition", "apiextensions_v1"),
        ("rbac.authorization.k8s.io/v1", "ClusterRoleBinding", "rbac_authorization_v1"),
    ],
)
def test_built_in_kinds_are_found_in_lightkubes_models(
    api_version: str, kind: str, module: str
) -> None:
    model = builtin_model(api_version, kind)
    assert model is not None and model.__module__ == f"lightkube.resources.{module}"


def test_unknown_kinds_are_a_bug_report() -> None:
    assert builtin_model("v1", "NoSuchKind") is None
    assert builtin_model("example.com/v1", "Widget") is None
    with pytest.raises(CloudError, match="does not know the Kubernetes kind example"):
        resource_for("example.com/v1", "Widget")
