"""`workload create --script-dir DIR` on VM-style clusters: the folder copied to every worker
(only the layers each lacks, over the broadcast engine) before the command runs in it.

`prepare` packs the folder (locally, so the dry-run shows the layers) and gives the step and
the command to run; `handler` is the step's live handler: it reaches the workers as `xcli scp`
does (app/ssh.py), sends each worker what this machine has not sent it yet, assembles the
folder there, and resends everything to a worker that lost its layer files.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from xcli.errors import CloudError
from xcli.image import sync
from xcli.user_files import expand_home

if TYPE_CHECKING:
    from xcli.app.deps import Deps, Location
    from xcli.plan.contract import StepContext
    from xcli.plan.fanout import Action, Target
    from xcli.plan.fanout_result import FanoutResult

STEP = "script-sync"


def prepare(script_dir: Path, cluster: str, deps: Deps) -> sync.ScriptSync:
    from xcli import paths
    from xcli.image import context
    from xcli.image.layers import Store

    store = Store(paths.image_cache_dir())
    ctx = context.scan(expand_home(script_dir, "--script-dir"))
    layers = tuple(store.build(ctx))
    deps.say(
        f"packed {script_dir} ({ctx.total_bytes / 1e6:.1f} MB) into {len(layers)} layer(s) "
        "to copy to the workers"
    )
    tag = sync.tag_of(layers)
    return sync.ScriptSync(
        id=STEP,
        summary=f"copy {script_dir.name or '.'}/ to every worker of {cluster} "
        f"(~/{sync.folder(tag)})",
        cluster=cluster,
        tag=tag,
        layers=layers,
        store=str(store.root),
    )


def handler(provider: str, where: Location, deps: Deps) -> Any:
    def run(step: sync.ScriptSync, ctx: StepContext) -> Mapping[str, Any]:
        return _sync(step, provider, where, deps, ctx)

    return run


def _sync(
    step: sync.ScriptSync, provider: str, where: Location, deps: Deps, ctx: StepContext
) -> Mapping[str, Any]:
    from xcli.app.ssh import Transport, resolve
    from xcli.plan.fanout import Exec, Upload

    transport = Transport(
        step.cluster, provider, "all", "all", 0, 10, None, None, False, (), "auto",
        "accept-new", None, True, None, where,
    )  # fmt: skip
    resolved = resolve(transport, deps)
    record = _record(step.cluster)
    sent = _load(record)
    blobs = {x.digest: Path(step.store) / "blobs" / "sha256" / x.digest[7:] for x in step.layers}
    lacking = {t: [d for d in blobs if d not in sent.get(_key(t), [])] for t in resolved.targets}
    needy = [t for t in resolved.targets if lacking[t]]
    uploaded = sum(len(v) for v in lacking.values())
    if needy:
        ctx.report(f"sending {uploaded} layer file(s) to {len(needy)} worker(s)")
        _fan(resolved, deps, ctx, needy, Exec(f"mkdir -p {sync.LAYERS}"))
        uploads: list[Action] = [
            Upload(tuple(str(blobs[d]) for d in lacking[t]), f"{sync.LAYERS}/") for t in needy
        ]
        _fan(resolved, deps, ctx, needy, uploads)
    everyone = list(resolved.targets)
    assembly = Exec(sync.assemble(step.tag, step.layers))
    result = _fan(resolved, deps, ctx, everyone, assembly, allow=True)
    by_label = {o.label: o for o in result.outcomes}
    lost = [
        t for t in resolved.targets
        if by_label.get(t.label) is not None and by_label[t.label].exit_code == sync.MISSING
    ]  # fmt: skip
    if lost:  # a worker lost its layer files (recreated): everything again, then assemble
        ctx.report(f"{len(lost)} worker(s) lost their layer files: sending all layers again")
        _fan(resolved, deps, ctx, lost, Exec(f"mkdir -p {sync.LAYERS}"))
        every_layer = Upload(tuple(str(p) for p in blobs.values()), f"{sync.LAYERS}/")
        _fan(resolved, deps, ctx, lost, every_layer)
        _fan(resolved, deps, ctx, lost, assembly)
        uploaded += len(lost) * len(blobs)
    else:
        failed = [o for o in result.outcomes if not o.ok]
        if failed:
            raise CloudError(
                f"copying the script folder failed on {failed[0].label}: {failed[0].reason}",
                hint="check the worker with xcli ssh, then run the same command again",
            )
    for target in resolved.targets:
        sent[_key(target)] = sorted(set(sent.get(_key(target), [])) | set(blobs))
    _save(record, sent)
    return {"layers_sent": uploaded, "workers": len(resolved.targets)}


def _fan(
    resolved: Any,
    deps: Deps,
    ctx: StepContext,
    targets: list[Target],
    action: Action | list[Action],
    allow: bool = False,
) -> FanoutResult:
    from xcli.app.ssh import _engine
    from xcli.plan.fanout import Broadcast, plan_broadcast

    engine, settings, _note, through = _engine(resolved, deps)
    plan = plan_broadcast(
        resolved.cluster, targets, action, settings, engine=engine,
        batch_size=resolved.batch_size or len(targets), retry_for=resolved.retry_for,
        through=through,
    )  # fmt: skip
    (step,) = plan.steps
    assert isinstance(step, Broadcast)
    result = deps.broadcast(step, deps.sink(None), ctx.cancelled)
    if not allow:
        failed = [o for o in result.outcomes if not o.ok]
        if failed:
            raise CloudError(
                f"copying the script folder failed on {failed[0].label}: {failed[0].reason}",
                hint="check the worker with xcli ssh, then run the same command again",
            )
    return result


def _key(target: Target) -> str:
    return f"{target.host}:{target.port}"


def _record(cluster: str) -> Path:
    from xcli import paths

    return paths.state_dir() / "script-sync" / f"{cluster}.json"


def _load(path: Path) -> dict[str, list[str]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {str(k): [str(d) for d in v] for k, v in data.items()} if isinstance(data, dict) else {}


def _save(path: Path, data: dict[str, list[str]]) -> None:
    from xcli.state_files import write_private

    path.parent.mkdir(parents=True, exist_ok=True)
    write_private(path, json.dumps(data, indent=1, sort_keys=True))
