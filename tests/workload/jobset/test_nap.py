"""`workload create` on a node auto-provisioning cluster (issue 38): any shape of the family
within the chip limit, the limit pre-flight, the capacity chosen at submit time."""

from __future__ import annotations

import pytest

from xcli.catalog import lookup
from xcli.errors import UserError
from xcli.spec import Capacity
from xcli.workload.jobset.manifest import build_jobset
from xcli.workload.jobset.plan import check_fits, plan_workload_create, with_capacity
from xcli.workload.spec import ClusterMeta, cluster_meta_from_dict, workload_spec

NAP = {
    "accelerator": "v6e-256", "num_slices": "2", "capacity_type": "spot",
    "autoprovisioning": "true", "autoprovisioning_max_chips": "512",
}  # fmt: skip


def _meta(**data: str) -> ClusterMeta:
    return cluster_meta_from_dict({**NAP, **data}, "demo")


def _spec(meta: ClusterMeta, device: str, slices: int | None = None, nodes: int | None = None):  # type: ignore[no-untyped-def]
    return workload_spec(
        cluster="demo", name="w", image="img:1", command="true", meta=meta,
        accelerator=device, num_slices=slices, num_nodes=nodes,
    )  # fmt: skip


def _pod(spec, meta):  # type: ignore[no-untyped-def]
    job = build_jobset(spec, meta)["spec"]["replicatedJobs"][0]
    return job["replicas"], job["template"]["spec"]["template"]["spec"]


def test_the_configmap_says_the_limit() -> None:
    assert _meta().nap_max_chips == 512 and _meta().autoprovisioned
    assert not cluster_meta_from_dict({"accelerator": "v6e-256"}, "demo").autoprovisioned


def test_another_slice_size_runs_and_asks_for_its_own_topology() -> None:
    meta = _meta()
    spec = _spec(meta, "v6e-16", 4)
    check_fits(spec, meta, ())
    replicas, pod = _pod(spec, meta)
    assert replicas == 4
    assert pod["nodeSelector"]["cloud.google.com/gke-tpu-topology"] == "4x4"
    assert pod["nodeSelector"]["cloud.google.com/gke-spot"] == "true"
    notes = plan_workload_create(spec, meta, ()).notes
    assert any("GKE creates the node pools of 4 x v6e-16" in n for n in notes)


def test_a_workload_over_the_limit_is_refused_with_the_line_that_raises_it() -> None:
    meta = _meta()
    with pytest.raises(UserError) as caught:
        check_fits(_spec(meta, "v6e-256", 3), meta, ())
    assert "needs 768 chips" in str(caught.value) and "limit is 512" in str(caught.value)
    assert caught.value.hint is not None
    assert "--tpu-type v6e-256 --num-slices 2 --enable-autoprovisioning" in caught.value.hint
    assert "--autoprovisioning-max-chips 768" in caught.value.hint


def test_another_family_is_refused() -> None:
    meta = _meta()
    with pytest.raises(UserError, match="auto-provisions tpu-v6e-slice"):
        check_fits(_spec(meta, "v5p-8"), meta, ())


def test_a_shared_reservation_asked_at_submit_gets_nap_selectors() -> None:
    meta = with_capacity(
        _meta(), Capacity("reservation", reservation="projects/shared-proj/reservations/r2")
    )
    _, pod = _pod(_spec(meta, "v6e-16"), meta)
    selector = pod["nodeSelector"]
    assert selector["cloud.google.com/reservation-name"] == "r2"
    assert selector["cloud.google.com/reservation-project"] == "shared-proj"
    assert selector["cloud.google.com/reservation-affinity"] == "specific"
    assert "cloud.google.com/gke-spot" not in selector


def test_on_demand_at_submit_drops_the_clusters_spot() -> None:
    meta = with_capacity(_meta(), Capacity("on-demand"))
    _, pod = _pod(_spec(meta, "v6e-16"), meta)
    assert "cloud.google.com/gke-spot" not in pod["nodeSelector"]


def test_capacity_at_submit_is_refused_on_a_cluster_with_its_own_pools() -> None:
    plain = cluster_meta_from_dict({"accelerator": "v6e-256", "capacity_type": "spot"}, "demo")
    with pytest.raises(UserError, match="its own spot pools"):
        with_capacity(plain, Capacity("on-demand"))
    blocks = Capacity("reservation", reservation="r/reservationBlocks/b")
    with pytest.raises(UserError, match="reservation block"):
        with_capacity(_meta(), blocks)


def test_a_gpu_workload_counts_its_gpus() -> None:
    meta = cluster_meta_from_dict(
        {"accelerator": "a100-40gb-8", "num_nodes": "2", "autoprovisioning": "true",
         "autoprovisioning_max_chips": "16"}, "demo",
    )  # fmt: skip
    check_fits(_spec(meta, "a100-40gb-8", nodes=2), meta, ())
    with pytest.raises(UserError, match="needs 24 chips"):
        check_fits(_spec(meta, "a100-40gb-8", nodes=3), meta, ())
    assert lookup("a100-40gb-8").gke_accelerator == "nvidia-tesla-a100"


def test_another_shape_on_explicit_pools_names_nap_as_the_way() -> None:
    plain = cluster_meta_from_dict({"accelerator": "v6e-256", "num_slices": "2"}, "demo")
    with pytest.raises(UserError) as caught:
        check_fits(_spec(plain, "v6e-16"), plain, ())
    assert caught.value.hint is not None and "--enable-autoprovisioning" in caught.value.hint
    with pytest.raises(UserError) as other:
        check_fits(_spec(plain, "v5p-8"), plain, ())
    assert other.value.hint is not None and "autoprovisioning" not in other.value.hint


def test_a_pathways_workload_is_held_to_the_limit_too() -> None:
    from dataclasses import replace

    from xcli.workload.pathways.kind import check_cluster
    from xcli.workload.pathways.spec import PathwaysSpec

    meta = _meta(pathways_pool="cpu-np")
    fits = PathwaysSpec(
        name="pw", accelerator=lookup("v6e-256"), num_slices=2, gcs_location="gs://b/p"
    )
    check_cluster(fits, meta, ())  # 512 chips: within; more slices than the cluster was made with
    with pytest.raises(UserError, match="auto-provisioning limit of 512"):
        check_cluster(replace(fits, num_slices=3), meta, ())


def test_the_nap_hint_is_not_given_for_shapes_nap_refuses() -> None:
    from xcli.workload.jobset.plan import nap_hint

    assert nap_hint(lookup("tpu7x-128"), lookup("tpu7x-8")) == ""  # workload policy
    assert nap_hint(lookup("h100-80gb-8"), lookup("h100-80gb-8")) == ""  # GPUDirect
    assert "--enable-autoprovisioning" in nap_hint(lookup("tpu7x-8"), lookup("tpu7x-128"))
