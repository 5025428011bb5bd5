"""Lists of thousands of objects come page by page (`limit`/`continue`), all of them once."""

from __future__ import annotations

from tests.support.fakekube import FakeKube
from xcli.gateways.kube.api import KubeApi


def _pod(n: int) -> dict[str, object]:
    labels = {"jobset.sigs.k8s.io/jobset-name": "train-1" if n % 2 == 0 else "other"}
    meta = {"name": f"p-{n:05d}", "namespace": "default", "labels": labels}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "status": {"phase": "Running"}}


def test_a_list_of_thousands_of_pods_follows_every_page() -> None:
    fake = FakeKube()
    for n in range(2 * 2304):
        fake.put(f"/api/v1/namespaces/default/pods/p-{n:05d}", _pod(n))
    api = KubeApi("203.0.113.9", None, lambda: "tok", transport=fake.transport())
    pods = api.list("v1", "Pod", "default", labels={"jobset.sigs.k8s.io/jobset-name": "train-1"})
    assert [p["metadata"]["name"] for p in pods] == [f"p-{n:05d}" for n in range(0, 4608, 2)]
    lists = [r for r in fake.requests if r.url.path == "/api/v1/namespaces/default/pods"]
    assert [r.url.params.get("limit") for r in lists] == ["500"] * 5  # 2,304 pods, 500 a page
    assert [r.url.params.get("continue") for r in lists] == [None, "500", "1000", "1500", "2000"]
    assert all(
        r.url.params["labelSelector"] == "jobset.sigs.k8s.io/jobset-name=train-1" for r in lists
    )
