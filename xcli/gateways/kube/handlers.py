"""Live handlers for the Kubernetes step kinds: k8s_apply, k8s_install, k8s_wait, k8s_delete
and k8s_cohort_read (gateways/kube/cohort_read.py).

`KubeHandlers(connect)` takes a function from a step's `cluster` (the GKE cluster's resource
name) to a KubeApi; the GKE provider builds it from clusters.get (endpoint and CA). One KubeApi
per cluster is kept for the whole run.

Every write is retried while the API server answers that a webhook is not serving yet, or that
a freshly created CRD's kind is not served yet, with capped exponential backoff, until a
deadline. Anything else fails the step at once with the server's message. Retries and waits go
through xcli.gateways.backoff (tenacity, one cancellable sleep): Ctrl-C ends them at once.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

from xcli.errors import CloudError
from xcli.gateways.backoff import RetryPolicy, Sleep, Timing, event_sleep, growing, poll, retry_call
from xcli.gateways.kube import cohort_read
from xcli.gateways.kube.api import KubeApi, kind_for_plural, register_crd
from xcli.plan.contract import Handler, StepContext
from xcli.plan.gke.kube_steps import K8sDelete, K8sInstall, K8sWait
from xcli.plan.steps import K8sApply

Fetch = Callable[[str], str]


def fetch_manifest(url: str) -> str:
    """Download a release manifest (plain HTTPS GET; the URL is pinned in the plan)."""
    import requests

    try:
        response = requests.get(url, timeout=60)
        response.raise_for_status()
    except requests.RequestException as exc:
        from xcli.gateways.ssh import reach

        why = reach.reason(exc) if reach.is_unreachable(exc) else str(exc)
        raise CloudError(
            f"cannot download {url}: {why}",
            hint="this machine needs HTTPS access to github.com to install JobSet and Kueue",
            retryable=True,
        ) from None
    return response.text


def parse_manifest(text: str, source: str) -> list[dict[str, Any]]:
    """The objects of a multi-document YAML manifest, in apply order.

    Namespaces first, then CustomResourceDefinitions, then the rest in file order: what
    `kubectl apply` would need to succeed in one pass. `*List` documents are flattened.
    """
    import yaml  # on a live run only: a dry-run parses no manifest

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        docs = list(yaml.load_all(text, Loader=loader))
    except yaml.YAMLError as exc:
        raise CloudError(f"{source} is not valid YAML: {exc}", hint="report this to xcli") from None
    objects: list[dict[str, Any]] = []
    todo = list(docs)
    while todo:
        doc = todo.pop(0)
        if doc is None:
            continue
        if not isinstance(doc, dict) or not doc.get("apiVersion") or not doc.get("kind"):
            raise CloudError(f"{source}: a document is not a Kubernetes object", hint="")
        if doc["kind"].endswith("List") and "items" in doc:
            todo[:0] = doc["items"] or []
            continue
        if not (doc.get("metadata") or {}).get("name"):
            raise CloudError(f"{source}: a {doc['kind']} has no metadata.name", hint="")
        objects.append(doc)
    rank = {"Namespace": 0, "CustomResourceDefinition": 1}
    return sorted(objects, key=lambda o: rank.get(o["kind"], 2))


def set_limits(objects: list[dict[str, Any]], spec: Mapping[str, Any], source: str) -> None:
    """Set container resource limits (and requests, when given) in a Deployment of a parsed
    manifest, in place."""
    namespace, _, name = str(spec["deployment"]).partition("/")
    for obj in objects:
        meta = obj["metadata"]
        if obj["kind"] == "Deployment" and (meta.get("namespace"), meta["name"]) == (
            namespace,
            name,
        ):
            for container in obj["spec"]["template"]["spec"]["containers"]:
                if container["name"] == spec["container"]:
                    resources = container.setdefault("resources", {})
                    resources.setdefault("limits", {}).update(spec["limits"])
                    if spec.get("requests"):
                        resources.setdefault("requests", {}).update(spec["requests"])
                    return
    raise CloudError(
        f"{source} has no container {spec['container']} in Deployment {spec['deployment']}",
        hint="the release manifest changed shape; report this to xcli",
    )


class KubeHandlers:
    """Handlers for the Kubernetes step kinds, sharing one KubeApi per cluster."""

    def __init__(
        self,
        connect: Callable[[str], KubeApi],
        *,
        fetch: Fetch = fetch_manifest,
        sleep: Sleep = event_sleep,
        clock: Callable[[], float] = time.monotonic,
        rand: Callable[[], float] = random.random,
        apply_timeout: float = 600.0,
    ) -> None:
        self._connect = connect
        self._fetch = fetch
        self._clock = clock
        self._timing = Timing(sleep=sleep, clock=clock, rand=rand)
        self._apply_timeout = apply_timeout
        self._apis: dict[str, KubeApi] = {}
        self._lock = threading.Lock()

    def handlers(self) -> dict[str, Handler]:
        return {
            "k8s_apply": self.apply,
            "k8s_install": self.install_release,
            "k8s_wait": self.wait,
            "k8s_delete": self.delete,
            "k8s_cohort_read": cohort_read.handler(self.api),
        }

    def api(self, cluster: str) -> KubeApi:
        with self._lock:
            if cluster not in self._apis:
                self._apis[cluster] = self._connect(cluster)
            return self._apis[cluster]

    def apply(self, step: K8sApply, ctx: StepContext) -> Mapping[str, Any]:
        api = self.api(str(step.cluster))
        stored = self.apply_with_retry(api, step.manifest, ctx, field_manager=step.field_manager)
        meta = stored.get("metadata") or {}
        return {"uid": meta.get("uid", ""), "resource_version": meta.get("resourceVersion", "")}

    def delete(self, step: K8sDelete, ctx: StepContext) -> Mapping[str, Any]:
        """Delete the object, then poll until it is gone (foreground deletion takes a while)."""
        api = self.api(str(step.cluster))
        kind = kind_for_plural(step.api_version, step.resource)
        args = (step.api_version, kind, str(step.name), step.namespace or None)  # "": cluster-wide
        existed = api.delete(*args, propagation=step.propagation)
        start = self._clock()

        def gone() -> bool | None:
            if api.get(*args) is None:
                return True
            ctx.report(f"waiting for {kind} {step.name} to go ({round(self._clock() - start)}s)")
            return None

        def too_long(elapsed: float) -> CloudError:
            return CloudError(
                f"{kind} {step.namespace}/{step.name} still exists after {round(elapsed)}s",
                hint="its pods may be stuck terminating; look at them, then run again",
                status="DeadlineExceeded",
            )

        if existed:
            poll(
                gone,
                delays=growing(1.0, 1.5, 10.0),
                timeout=step.timeout_seconds,
                timing=self._timing,
                cancelled=ctx.cancelled,
                on_timeout=too_long,
            )
        return {"existed": existed}

    def install_release(self, step: K8sInstall, ctx: StepContext) -> Mapping[str, Any]:
        api = self.api(str(step.cluster))
        ctx.report(f"downloading {step.component} {step.version}")
        objects = parse_manifest(self._fetch(step.url), step.url)
        if step.limits:
            set_limits(objects, step.limits, step.url)
        outputs: dict[str, Any] = {}
        if step.config_patch:
            from xcli.gateways.kube.release_config import patch_config

            outputs["config_sha256"] = patch_config(objects, step.config_patch, step.url)
        crds = [o for o in objects if o["kind"] == "CustomResourceDefinition"]
        for crd in crds:
            register_crd(crd)
        for n, obj in enumerate(objects, 1):
            ctx.report(f"{n}/{len(objects)} {obj['kind']} {obj['metadata']['name']}")
            self.apply_with_retry(api, obj, ctx, field_manager=step.field_manager)
        return {
            "objects": len(objects),
            "crds": [c["metadata"]["name"] for c in crds],
            "version": step.version,
            **outputs,
        }

    def apply_with_retry(
        self,
        api: KubeApi,
        obj: Mapping[str, Any],
        ctx: StepContext,
        *,
        dry_run: bool = False,
        field_manager: str | None = None,
    ) -> dict[str, Any]:
        """Apply, retrying while the refusal is one that waiting fixes (webhook not serving)."""
        policy = RetryPolicy(
            initial=1.0, multiplier=2.0, maximum=15.0, deadline=self._apply_timeout
        )
        name = f"{obj['kind']} {obj['metadata']['name']}"
        stored: dict[str, Any] = retry_call(
            lambda: api.apply(obj, dry_run=dry_run, field_manager=field_manager),
            lambda exc: isinstance(exc, CloudError) and exc.retryable,
            self._timing,
            policy,
            ctx.cancelled,
            ctx.report,
            what=f"{name}: not accepted yet",
        )
        return stored

    def wait(self, step: K8sWait, ctx: StepContext) -> Mapping[str, Any]:
        api = self.api(str(step.cluster))
        start = self._clock()
        pending = [*(f"crd/{c}" for c in step.crds), *(f"deployment/{d}" for d in step.deployments)]
        probes = list(step.probes)
        last = {"said": "", "waiting": ""}

        def ready() -> dict[str, Any] | None:
            nonlocal pending, probes
            pending = [item for item in pending if not _ready(api, item)]
            if not pending:
                probes = [p for p in probes if not _webhook_answers(api, p)]
            waiting = pending or [f"webhook for {p['kind']}" for p in probes]
            if not waiting:
                return {"seconds": round(self._clock() - start)}
            last["waiting"] = ", ".join(waiting)
            if last["waiting"] != last["said"]:
                ctx.report(f"waiting for {last['waiting']} ({round(self._clock() - start)}s)")
                last["said"] = last["waiting"]
            return None

        def too_long(elapsed: float) -> CloudError:
            return CloudError(
                f"not ready after {round(elapsed)}s: {last['waiting']}",
                hint="look at the controller pods in jobset-system and kueue-system; "
                "run the same command again to continue",
                status="DeadlineExceeded",
            )

        answer: dict[str, Any] = poll(
            ready,
            delays=growing(2.0, 1.5, 10.0),
            timeout=step.timeout_seconds,
            timing=self._timing,
            cancelled=ctx.cancelled,
            on_timeout=too_long,
        )
        return answer


def _ready(api: KubeApi, item: str) -> bool:
    kind, _, name = item.partition("/")
    try:
        if kind == "crd":
            obj = api.get("apiextensions.k8s.io/v1", "CustomResourceDefinition", name)
            wanted = "Established"
        else:
            namespace, _, name = name.partition("/")
            obj = api.get("apps/v1", "Deployment", name, namespace)
            wanted = "Available"
    except CloudError as exc:
        if exc.retryable:
            return False
        raise
    conditions = ((obj or {}).get("status") or {}).get("conditions") or []
    available = any(c.get("type") == wanted and c.get("status") == "True" for c in conditions)
    return available and (kind == "crd" or _rolled_out(obj or {}))


def _rolled_out(deployment: Mapping[str, Any]) -> bool:
    """The Deployment's newest template runs everywhere: what `kubectl rollout status` checks
    (https://kubernetes.io/docs/concepts/workloads/controllers/deployment/#complete-deployment).
    A changed pod template (a new configuration, plan/gke/kueue_config.py) keeps the old pods
    Available while the new ones start; the controller that matters is the new one. Counts the
    API server has not reported yet do not hold the wait."""
    meta, spec = deployment.get("metadata") or {}, deployment.get("spec") or {}
    status = deployment.get("status") or {}
    if "observedGeneration" in status and status["observedGeneration"] < meta.get("generation", 0):
        return False
    want = int(spec.get("replicas", 1))
    updated = int(status.get("updatedReplicas", want))
    total = int(status.get("replicas", updated))
    available = int(status.get("availableReplicas", updated))
    return updated >= want and total <= updated and available >= updated


def _webhook_answers(api: KubeApi, probe: Mapping[str, Any]) -> bool:
    """A dry-run apply of `probe` passed the webhooks (retryable refusals mean: not yet)."""
    try:
        api.apply(probe, dry_run=True)
    except CloudError as exc:
        if exc.retryable:
            return False
        raise
    return True
