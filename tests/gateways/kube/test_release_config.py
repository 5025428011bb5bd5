"""Kueue's Configuration patched in its release manifest (fair sharing on), the controller
restarted only when that changes, and the wait that sees the restart through."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest
import yaml

from tests.gateways.kube.test_kube_handlers import (
    CRD_PATH,
    DEPLOY_PATH,
    FIXTURE,
    Clock,
    handlers,
    run,
    seed,
    wait_step,
)
from tests.plan.test_incluster import CASES, CLUSTER
from tests.support.fakekube import FakeKube
from xcli.errors import CloudError
from xcli.gateways.kube.handlers import parse_manifest
from xcli.gateways.kube.release_config import merged, patch_config
from xcli.plan.gke import incluster
from xcli.plan.gke.kube_steps import K8sInstall
from xcli.plan.gke.kueue_config import kueue_config_patch

URL = incluster.release_url("kueue", incluster.KUEUE_VERSION)
CONFIGMAP = "/api/v1/namespaces/kueue-system/configmaps/kueue-manager-config"
DEPLOYMENT = "/apis/apps/v1/namespaces/kueue-system/deployments/kueue-controller-manager"
KEY = "controller_manager_config.yaml"


def kueue_release(text: str | None = None) -> str:
    """The fixture renamed to look like Kueue's release manifest (ConfigMap included)."""
    text = text if text is not None else FIXTURE.read_text()
    return text.replace("gadget", "kueue").replace("Gadget", "Kueue")


def objects(text: str | None = None) -> list[dict[str, Any]]:
    return parse_manifest(kueue_release(text), URL)


def find(found: list[dict[str, Any]], kind: str) -> dict[str, Any]:
    return next(o for o in found if o["kind"] == kind)


def test_patch_switches_fair_sharing_on_and_keeps_the_rest() -> None:
    found = objects()
    before = yaml.safe_load(find(found, "ConfigMap")["data"][KEY])
    digest = patch_config(found, kueue_config_patch(), URL)
    config = yaml.safe_load(find(found, "ConfigMap")["data"][KEY])  # real YAML round trip
    assert config["fairSharing"] == {
        "preemptionStrategies": ["LessThanOrEqualToFinalShare", "LessThanInitialShare"]
    }
    assert config == {**before, "fairSharing": config["fairSharing"]}
    assert config["apiVersion"] == "config.kueue.x-k8s.io/v1beta2"
    data = json.dumps(find(found, "ConfigMap")["data"], sort_keys=True).encode()
    assert digest == hashlib.sha256(data).hexdigest()
    template = find(found, "Deployment")["spec"]["template"]
    assert template["metadata"]["annotations"] == {"xcli.dev/config-sha256": digest}


def test_same_configuration_same_digest_another_one_another() -> None:
    first = patch_config(objects(), kueue_config_patch(), URL)
    assert patch_config(objects(), kueue_config_patch(), URL) == first
    other = {**kueue_config_patch(), "merge": {"fairSharing": {"preemptionStrategies": []}}}
    assert patch_config(objects(), other, URL) != first


def test_merge_replaces_lists_and_merges_mappings() -> None:
    base = {"a": {"b": 1, "c": [1, 2]}, "d": 1}
    assert merged(base, {"a": {"c": [3]}, "e": {"f": 1}}) == {
        "a": {"b": 1, "c": [3]},
        "d": 1,
        "e": {"f": 1},
    }
    assert base == {"a": {"b": 1, "c": [1, 2]}, "d": 1}  # unchanged


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (("config.kueue.x-k8s.io/v1beta2", "config.kueue.x-k8s.io/v1beta1"), "v1beta1"),
        (("name: kueue-manager-config", "name: other-config"), "no key"),
        (("controller_manager_config.yaml: |", "other.yaml: |"), "no key"),
        (("name: kueue-controller-manager", "name: other-manager"), "no Deployment"),
    ],
)
def test_a_release_of_another_shape_is_refused(edit: tuple[str, str], message: str) -> None:
    text = kueue_release().replace(*edit)
    with pytest.raises(CloudError, match=message) as caught:
        patch_config(parse_manifest(text, URL), kueue_config_patch(), URL)
    assert "changed shape" in caught.value.hint


def install() -> K8sInstall:
    return next(
        s
        for s in incluster.setup_steps(CASES["tpu7x-8"], CLUSTER, ("cluster",))
        if isinstance(s, K8sInstall) and s.component == "kueue"
    )


def test_live_install_applies_the_patched_configmap_and_restarts_only_on_change() -> None:
    fake, clock = FakeKube(), Clock()
    release = kueue_release()
    kube = handlers(fake, clock, fetch=lambda url: release)
    step = install()
    # an earlier install (an older xcli, or the release as is): no fair sharing
    old = K8sInstall(**{**step.__dict__, "config_patch": {}})
    assert run(kube, old).ok
    before = fake.objects[DEPLOYMENT]["spec"]["template"]
    assert "fairSharing" not in yaml.safe_load(fake.objects[CONFIGMAP]["data"][KEY])

    result = run(kube, step)  # cluster create re-run / cluster adapt: the configuration changes
    assert result.ok, result.results[step.id].error
    sent = [json.loads(r.content) for r in fake.patches() if r.url.path == CONFIGMAP]
    config = yaml.safe_load(sent[-1]["data"][KEY])
    assert "LessThanInitialShare" in config["fairSharing"]["preemptionStrategies"]
    changed = fake.objects[DEPLOYMENT]["spec"]["template"]
    digest = result.results[step.id].outputs["config_sha256"]
    assert changed != before  # a new pod template: the Deployment replaces its pods
    assert changed["metadata"]["annotations"]["xcli.dev/config-sha256"] == digest

    assert run(kube, step).ok  # the same again: the template stays as it is, no restart
    assert fake.objects[DEPLOYMENT]["spec"]["template"] == changed


def test_wait_sees_a_restart_through() -> None:
    """Available old pods do not end the wait while the new template rolls out."""
    fake, clock = FakeKube(), Clock()
    seed(fake, CRD_PATH, "CRD", "Established", "True")
    seed(fake, DEPLOY_PATH, "Deployment", "Available", "True")
    rolling = fake.objects[DEPLOY_PATH]
    rolling["metadata"]["generation"] = 2
    rolling["spec"] = {"replicas": 1}
    rolling["status"].update(observedGeneration=2, replicas=2, updatedReplicas=1)
    original = fake.handle
    polls = {"n": 0}

    def handle(request: Any) -> Any:  # the old pod is gone on the third poll
        if request.method == "GET" and request.url.path == DEPLOY_PATH:
            polls["n"] += 1
            if polls["n"] == 3:
                rolling["status"].update(replicas=1, availableReplicas=1)
        return original(request)

    fake.handle = handle  # type: ignore[method-assign]
    result = run(handlers(fake, clock), wait_step())
    assert result.ok, result.results["wait"].error
    assert polls["n"] == 3
