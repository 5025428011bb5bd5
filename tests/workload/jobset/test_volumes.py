"""Storages in a JobSet's pods (pure): every replicated job and container, the service account
a storage was granted to, Parallelstore's annotation, and records that cannot be mounted."""

from __future__ import annotations

import copy

import pytest

from tests.support.crd import validate
from tests.workload.cases import meta_for, spec_for
from xcli.errors import ConfigError
from xcli.plan.storage import Storage
from xcli.workload.jobset.manifest import build_jobset
from xcli.workload.jobset.volumes import add_to_jobset, pod_settings

FS = Storage("fs", "filestore", "projects/p/locations/z/instances/i", "/fs", pvc="fs-pvc")
PS = Storage("ps", "parallelstore", "p/z/i/default-pool/default-container", "/ps", pvc="ps-pvc")


PARALLELSTORE = {"gke-parallelstore/volumes": "true"}


@pytest.mark.parametrize("case", ["v6e-256-x2", "h100-80gb-8-x2"])
def test_every_pod_template_and_container_mounts_them(case: str) -> None:
    js = build_jobset(spec_for(case), meta_for(case))
    before = copy.deepcopy(js)
    out = add_to_jobset(js, [FS, PS])
    validate(out)
    assert js == before  # the input is left as it was
    pairs = zip(out["spec"]["replicatedJobs"], before["spec"]["replicatedJobs"], strict=True)
    for rjob, old in pairs:
        template = rjob["template"]["spec"]["template"]
        was = old["template"]["spec"]["template"]
        annotations = template["metadata"]["annotations"]
        assert annotations == {**was["metadata"].get("annotations", {}), **PARALLELSTORE}
        names = [v["name"] for v in template["spec"]["volumes"]]
        assert names == [v["name"] for v in was["spec"]["volumes"]] + ["storage-fs", "storage-ps"]
        containers = zip(template["spec"]["containers"], was["spec"]["containers"], strict=True)
        for container, plain in containers:
            mounts = [m["mountPath"] for m in container["volumeMounts"]]
            assert mounts == [m["mountPath"] for m in plain["volumeMounts"]] + ["/fs", "/ps"]


def test_the_service_account_a_storage_was_granted_to() -> None:
    granted = Storage("b", "gcsfuse", "bkt", "/b", pvc="b-pvc", attributes={"ksa": "trainer"})
    assert pod_settings([granted, FS])["serviceAccountName"] == "trainer"
    other = Storage("c", "gcsfuse", "c", "/c", pvc="c-pvc", attributes={"ksa": "reader"})
    with pytest.raises(ConfigError, match="different service accounts: reader, trainer"):
        pod_settings([granted, other])


def test_a_record_without_a_claim_is_refused() -> None:
    with pytest.raises(ConfigError, match="storage fs has no PersistentVolumeClaim recorded"):
        pod_settings([Storage("fs", "filestore", "x", "/fs")])
