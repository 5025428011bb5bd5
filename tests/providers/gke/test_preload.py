"""The preload DaemonSet (providers/gke/preload.py), validated with lightkube-models."""

from __future__ import annotations

from tests.support.core import validate_core
from tests.support.daemonset import IMAGE
from xcli.providers.gke.preload import daemonset


def test_the_daemonset_is_a_valid_object_for_every_accelerator_node() -> None:
    ds = daemonset(IMAGE)
    validate_core(ds)
    pod = ds["spec"]["template"]["spec"]
    assert pod["initContainers"][0]["image"] == IMAGE
    terms = pod["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
    keys = [t["matchExpressions"][0]["key"] for t in terms["nodeSelectorTerms"]]
    assert keys == ["cloud.google.com/gke-tpu-accelerator", "cloud.google.com/gke-accelerator"]
    assert pod["tolerations"] == [{"operator": "Exists"}]
