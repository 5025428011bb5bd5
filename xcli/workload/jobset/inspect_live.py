"""The live side of `xcli cluster inspect`: the handlers of its reads and of the bundle.

Each read's answer is redacted as soon as it arrives (inspect.py's `redact`), so nothing
unredacted is kept; the bundle handler writes the answers, the Kueue Workload of `--workload`
and the summary to one archive (gateways/bundle.py).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from xcli.errors import CloudError
from xcli.gateways.bundle import write_archive
from xcli.plan.cluster import ClusterRef
from xcli.plan.contract import Handler, StepContext
from xcli.plan.gke.inspect_steps import Bundle, K8sLogs, K8sRead
from xcli.workload.jobset.inspect import redact, summarize, workload_kueue
from xcli.workload.jobset.live import Live

Writer = Callable[[Path, str, Mapping[str, bytes]], int]


def handlers(
    live: Live, ref: ClusterRef, workload: str | None = None, write: Writer = write_archive
) -> Mapping[str, Handler]:
    def read(step: Any, ctx: StepContext) -> Mapping[str, Any]:
        assert isinstance(step, K8sRead)
        api = live.api(ref)
        try:
            if step.name is not None:
                found: Any = api.get(
                    step.api_version, step.resource_kind, step.name, step.namespace
                )
            else:
                found = api.list(step.api_version, step.resource_kind, step.namespace, step.labels)
        except CloudError as exc:  # a kind the cluster lacks (Kueue not installed): say so
            if exc.status not in ("NotFound", "404"):
                raise
            found = {"error": exc.message}
        return {"file": step.file, "objects": redact(found)}

    def logs(step: Any, ctx: StepContext) -> Mapping[str, Any]:
        assert isinstance(step, K8sLogs)
        api = live.api(ref)
        text = []
        for pod in api.list("v1", "Pod", step.namespace, step.labels):
            name = pod["metadata"]["name"]
            text.append(f"==> {step.namespace}/{name} <==")
            try:
                lines = list(
                    api.logs(
                        name, step.namespace, container=step.container, tail_lines=step.tail_lines
                    )
                )
            except CloudError as exc:  # a pod whose container never started has no log
                lines = [f"(no log: {exc.message})"]
            text += [redact(line) for line in lines]
        return {"file": step.file, "objects": "\n".join(text) + "\n" if text else ""}

    def bundle(step: Any, ctx: StepContext) -> Mapping[str, Any]:
        assert isinstance(step, Bundle)
        answers = {sid: ctx.outputs[sid]["objects"] for sid in step.files if sid in ctx.outputs}
        files = {ctx.outputs[sid]["file"]: _encode(answers[sid]) for sid in answers}
        summary = summarize(answers, workload)
        if workload:
            kueue = workload_kueue(answers, workload)
            files[f"workload/{workload}/kueue-workload.json"] = _encode(kueue)
        files["summary.json"] = _encode(summary)
        size = write(Path(step.archive), f"inspect-{ref.name}", files)
        return {"archive": step.archive, "bytes": size, "files": len(files), "summary": summary}

    return {"k8s_read": read, "k8s_logs": logs, "bundle": bundle}


def _encode(value: Any) -> bytes:
    if isinstance(value, str):
        return value.encode()
    return (json.dumps(value, indent=2, ensure_ascii=False, default=str) + "\n").encode()
