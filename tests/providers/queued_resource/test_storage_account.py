"""Storage on Cloud TPU VMs runs gcsfuse as the VMs' service account: `cluster create
--service-account EMAIL` puts it on every node of the queued resource, with the cloud-platform
scope unless --scopes says otherwise; the body fits tpu.v2's discovery document."""

from __future__ import annotations

import pytest

from tests.providers.queued_resource.test_planner import _doc, requests_of
from tests.support.discovery import check_request
from tests.support.qr_specs import spec
from xcli.providers.queued_resource.planner import plan_create
from xcli.spec import Capacity

EMAIL = "trainer@my-proj.iam.gserviceaccount.com"
CLOUD = "https://www.googleapis.com/auth/cloud-platform"
STORAGE = "https://www.googleapis.com/auth/devstorage.read_write"


@pytest.mark.parametrize(("scopes", "expected"), [((), [CLOUD]), ((STORAGE,), [STORAGE])])
def test_service_account_reaches_every_node(scopes: tuple[str, ...], expected: list[str]) -> None:
    plan = plan_create(
        spec("qr", "v5litepod-16", Capacity("spot"), 2, service_account=EMAIL, scopes=scopes)
    )
    creates = [r for r in requests_of(plan) if r[0].endswith("queuedResources.create")]
    assert creates
    for api, method, url, body in creates:
        check_request(api, method, url, body, doc=_doc(url))
        specs = body["tpu"]["nodeSpec"]  # one spec for a multislice: nodeCount of them
        assert sum(s.get("multisliceParams", {}).get("nodeCount", 1) for s in specs) == 2
        for node_spec in specs:
            assert node_spec["node"]["serviceAccount"] == {"email": EMAIL, "scope": expected}
