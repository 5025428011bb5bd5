"""`xcli cluster test-network`: run the family's NCCL test as a workload and judge the network.

The test is an ordinary workload: a `WorkloadRequest` as `workload create` builds one (the same
checks, and the cluster's facts through the same facts reader), the same JobSet builder (so the
pods carry the family's GPUDirect pod spec, gpu_network.py) and the same plan and handlers.
Then: wait for it, read worker 0's log, parse NCCL's table (nccl.py) and compare the bus
bandwidth with the published figure. The JobSet is deleted afterwards unless the caller keeps
it. The result comes back as data (`Judged`); the CLI prints it, then raises its problem.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from xcli.catalog import published_busbw
from xcli.errors import CloudError, UserError
from xcli.workload.jobset.nccl import (
    NcclResult,
    Verdict,
    family_test,
    human_size,
    judge,
    nccl_script,
    parse_output,
)
from xcli.workload.request import NetworkTestRequest

if TYPE_CHECKING:
    from xcli.catalog import Accelerator
    from xcli.plan.contract import Handler
    from xcli.plan.model import Plan
    from xcli.workload.jobset.live import Live
    from xcli.workload.protocol import Context
    from xcli.workload.request import WorkloadRequest
    from xcli.workload.spec import WorkloadSpec

WORKLOAD = "xcli-network-test"
RunQuietly = Callable[["Plan", Callable[[], Mapping[str, "Handler"]]], None]


def check_family(accel: Accelerator, cluster: str) -> None:
    """Refuse clusters without a GPUDirect stack: there is no network to prove."""
    if accel.gpu_network is not None:
        return
    what = "TPUs" if accel.kind == "tpu" else f"{accel.name} GPUs"
    raise UserError(
        f"cluster {cluster} has {what}, which have no GPUDirect network stack to test",
        hint="test-network runs NCCL on A3 High, A3 Mega, A3 Ultra, A4 and A4X clusters "
        "(h100-80gb-8, h100-mega-80gb-8, h200-141gb-8, b200-8, gb200-4)",
    )


def workload_request(req: NetworkTestRequest, provider: str) -> WorkloadRequest:
    """The test's `workload create` request; image and command follow the family, once the
    cluster's machine is known (plan_network_test)."""
    from xcli.workload.request import WorkloadRequest

    return WorkloadRequest(
        cluster=req.cluster,
        name=WORKLOAD,
        command="",
        provider=provider,
        device_type=req.device_type,
        num_nodes=req.nodes,
        ttl_after_finished="1h",
        replace=True,  # a test left over from an interrupted run is replaced
    )


@dataclasses.dataclass(frozen=True)
class NetworkTest:
    """The planned test: the JobSet plan `workload create` would run, and what judging needs."""

    plan: Plan
    spec: WorkloadSpec
    ref: Any  # the cluster's ClusterRef
    handlers: Callable[[], Mapping[str, Handler]]
    live: Live  # how the run reaches the cluster (the handlers above use it too)


def plan_network_test(ctx: Context, live: Live, req: NetworkTestRequest) -> NetworkTest:
    """The family's NCCL test as a `workload create` request: same checks, JobSet, plan."""
    from xcli.catalog import lookup
    from xcli.workload.jobset.live import handlers
    from xcli.workload.jobset.plan import gke_cluster_path, plan_workload_create
    from xcli.workload.request import spec_from_request

    if req.device_type:  # refuse a TPU or plain GPU shape before anything else
        check_family(lookup(req.device_type), req.cluster)
    request = workload_request(req, ctx.provider)
    ref = ctx.cluster_ref(req.cluster)
    meta, existing = ctx.facts.cluster(live, ref, request, ctx.say)
    check_family(meta.accelerator, req.cluster)
    # the image and the script follow the machine (as workload_spec picks it) and --nodes
    accel = lookup(req.device_type) if req.device_type else meta.accelerator
    request = dataclasses.replace(
        request, image=family_test(accel).image, command=nccl_script(accel, req.nodes, req.test)
    )
    spec = spec_from_request(request, meta)
    plan = plan_workload_create(
        spec, meta, existing, gke_cluster_path(ctx.project, ctx.zone, spec.cluster)
    )
    return NetworkTest(plan, spec, ref, lambda: handlers(live, ref), live)


@dataclass(frozen=True)
class Judged:
    """The test's report (JSON), its text lines, and the error to raise once it is shown."""

    report: dict[str, Any]
    lines: tuple[str, ...]
    problem: CloudError | None


def run_network_test(
    ctx: Context,
    live: Live,
    req: NetworkTestRequest,
    test: NetworkTest,
    run_quietly: RunQuietly,
) -> Judged:
    """Submit the planned test, wait, read worker 0's NCCL table, judge it, clean up."""
    spec, ref = test.spec, test.ref
    run_quietly(test.plan, test.handlers)
    try:
        log = _wait_and_read(ctx, live, ref, req.timeout)
    finally:
        if not req.keep:
            _clean_up(ctx, live, ref, run_quietly)
    result = parse_output(log)
    verdict = judge(result, published_busbw(spec.accelerator), req.min_fraction, req.expect_busbw)
    report = network_report(spec.accelerator, spec.num_nodes, req, result, verdict)
    return Judged(report, tuple(report_lines(report)), _problem(result, verdict, report))


def _wait_and_read(ctx: Context, live: Live, ref: Any, timeout: int | None) -> str:
    from xcli.workload.jobset.live import TIMEOUT_EXIT, wait_for
    from xcli.workload.jobset.logs import stream_logs

    def said(state: str) -> None:
        ctx.say(f"network test on cluster {ref.name}: {state}")

    code = wait_for(live, ref, WORKLOAD, timeout, said)
    if code == TIMEOUT_EXIT:
        raise CloudError(
            f"the NCCL test did not finish within {timeout}s on cluster {ref.name}",
            hint="Kueue may not have admitted it (are the nodes free?); see "
            f"`xcli workload status {WORKLOAD} --cluster {ref.name}` with --keep",
        )
    lines = stream_logs(live, ref, WORKLOAD, worker="0")
    return "\n".join(line.text for line in lines if not line.note)


def _clean_up(ctx: Context, live: Live, ref: Any, run_quietly: RunQuietly) -> None:
    from xcli.workload.jobset.delete import plan_workload_delete
    from xcli.workload.jobset.live import handlers
    from xcli.workload.jobset.plan import gke_cluster_path

    path = gke_cluster_path(ctx.project, ctx.zone, ref.name)
    run_quietly(plan_workload_delete([WORKLOAD], path, ref.name), lambda: handlers(live, ref))


def network_report(
    accel: Accelerator, nodes: int, req: NetworkTestRequest, result: NcclResult, v: Verdict
) -> dict[str, Any]:
    return {
        "cluster": req.cluster,
        "accelerator": accel.name,
        "machine_type": accel.machine_type,
        "nodes": nodes,
        "test": req.test,
        "largest_size_bytes": result.largest.size,
        "busbw_gbps": v.measured,
        "avg_busbw_gbps": result.avg_busbw,
        "expected_gbps": v.expected,
        "expected_source": v.source,
        "min_fraction": v.fraction,
        "fraction": None if v.ratio is None else round(v.ratio, 4),
        "wrong_values": result.wrong,
        "ok": v.ok if not result.wrong else False,
        "rows": [{"size": r.size, "busbw_gbps": r.busbw} for r in result.rows],
    }


def report_lines(report: Mapping[str, Any]) -> list[str]:
    size = human_size(report["largest_size_bytes"])
    lines = [
        f"NCCL {report['test']} on {report['nodes']} x {report['accelerator']} "
        f"(cluster {report['cluster']}):",
        f"  bus bandwidth at {size}: {report['busbw_gbps']:.1f} GB/s "
        f"(average over all sizes {report['avg_busbw_gbps']:.1f} GB/s)",
    ]
    if report["expected_gbps"] is None:
        lines.append(
            f"  published for {report['machine_type']}: none found; pass --expect-busbw GBPS "
            "to judge it"
        )
        return lines
    lines.append(
        f"  expected for {report['machine_type']}: {report['expected_gbps']:.1f} GB/s "
        f"({report['expected_source']})"
    )
    verdict = "ok" if report["ok"] else "TOO LOW"
    lines.append(
        f"  {report['fraction']:.0%} of it: {verdict} (at least {report['min_fraction']:.0%} "
        "needed)"
    )
    return lines


def _problem(result: NcclResult, verdict: Verdict, report: Mapping[str, Any]) -> CloudError | None:
    if result.wrong:
        return CloudError(
            f"NCCL's correctness check found {result.wrong} wrong value(s)",
            hint="a GPU or NIC is faulty; run `xcli cluster test-network` again on other "
            "nodes and report the failing node",
        )
    if verdict.ok is False:
        return CloudError(
            f"bus bandwidth {verdict.measured:.1f} GB/s is {report['fraction']:.0%} of the "
            f"expected {verdict.expected:.1f} GB/s: the network fell back to TCP?",
            hint="check the GPUDirect stack: `kubectl get gkenetworkparamsets` (all Ready), "
            "the NCCL installer DaemonSet in kube-system, and NCCL's NET/ lines in the log "
            "(run with --keep and `xcli workload logs xcli-network-test`)",
        )
    return None
