"""The Kubernetes API gateway: server-side apply, get, list, delete and logs, through lightkube.

Objects go in and come out as plain dicts, so nothing outside xcli/gateways/ sees lightkube.
Every apply is a server-side apply (PATCH, application/apply-patch+yaml, fieldManager=xcli,
force=true, fieldValidation=Strict: an unknown field is an error, not silently dropped).

Connection and authentication (cluster CA, Google OAuth bearer token) are in kube_auth.py.
Tests pass `transport=httpx2.MockTransport(...)` and see every request, with no socket.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from xcli.errors import CloudError, InternalError
from xcli.gateways import reach
from xcli.gateways.kube_auth import TokenProvider, build_client, google_token_provider

if TYPE_CHECKING:
    import httpx2
    from lightkube import Client

# Custom kinds xcli writes or reads: (apiVersion, kind) -> (plural, namespaced). Kinds whose CRD
# is in a manifest being installed are learnt from that CRD (see register_crd).
CUSTOM_KINDS: dict[tuple[str, str], tuple[str, bool]] = {
    ("jobset.x-k8s.io/v1alpha2", "JobSet"): ("jobsets", True),
    ("kueue.x-k8s.io/v1beta2", "ResourceFlavor"): ("resourceflavors", False),
    ("kueue.x-k8s.io/v1beta2", "ClusterQueue"): ("clusterqueues", False),
    ("kueue.x-k8s.io/v1beta2", "LocalQueue"): ("localqueues", True),
    ("kueue.x-k8s.io/v1beta2", "WorkloadPriorityClass"): ("workloadpriorityclasses", False),
    ("kueue.x-k8s.io/v1beta2", "ProvisioningRequestConfig"): ("provisioningrequestconfigs", False),
    ("kueue.x-k8s.io/v1beta2", "AdmissionCheck"): ("admissionchecks", False),
    ("kueue.x-k8s.io/v1beta2", "Topology"): ("topologies", False),
    ("kueue.x-k8s.io/v1beta2", "Cohort"): ("cohorts", False),
    ("kueue.x-k8s.io/v1beta2", "Workload"): ("workloads", True),
}

# What an API server answers while a controller's admission or conversion webhook is not
# serving yet (JobSet and Kueue use conversion and `failurePolicy: Fail` admission webhooks,
# see their config/ folders in https://github.com/kubernetes-sigs/jobset and
# https://github.com/kubernetes-sigs/kueue): a write is refused with 500 and one of these phrases.
WEBHOOK_NOT_READY = (
    "failed calling webhook",
    "conversion webhook",
    "no endpoints available",
    "connection refused",
)


_IMPORT_LOCK = threading.Lock()


def load_lightkube() -> None:
    """Import lightkube's modules once, from one thread at a time.

    Steps run in threads; two threads importing lightkube's modules for the first time at once
    (one building a client, one registering a CRD's kinds) can fail with Python's import
    deadlock error. Every KubeApi is built through this, before any thread uses lightkube.
    """
    with _IMPORT_LOCK:
        import lightkube
        import lightkube.codecs
        import lightkube.config.models
        import lightkube.core.exceptions
        import lightkube.core.generic_client
        import lightkube.core.resource
        import lightkube.generic_resource  # noqa: F401


class KubeApi:
    """One cluster's Kubernetes API. Thread-safe: handlers share it across steps."""

    def __init__(
        self,
        endpoint: str,
        ca_cert: str | None,
        token: TokenProvider | None = None,
        *,
        client: Client | None = None,
        transport: httpx2.BaseTransport | None = None,
        field_manager: str = "xcli",
    ) -> None:
        load_lightkube()
        self.endpoint = endpoint
        self.field_manager = field_manager
        self._ca_cert = ca_cert
        self._token = token
        self._transport = transport
        self._client = client
        self._lock = threading.Lock()

    @property
    def client(self) -> Client:
        """The lightkube Client, built on first use (credentials are looked up only then)."""
        with self._lock:
            if self._client is None:
                token = self._token or google_token_provider()
                self._client = build_client(self.endpoint, self._ca_cert, token, self._transport)
            return self._client

    def apply(
        self,
        obj: Mapping[str, Any],
        *,
        force: bool = True,
        dry_run: bool = False,
        field_manager: str | None = None,
    ) -> dict[str, Any]:
        """Server-side apply `obj`; return the object as the server stored it."""
        res = resource_for(obj["apiVersion"], obj["kind"])
        meta = obj.get("metadata") or {}
        namespace = meta.get("namespace") or ("default" if _namespaced(res) else None)
        params = {
            "fieldManager": field_manager or self.field_manager,
            "force": "true" if force else None,
            "fieldValidation": "Strict",
            "dryRun": "All" if dry_run else None,
        }
        return self._send(
            f"apply {obj['kind']} {meta.get('name')}",
            "patch",
            res,
            name=meta["name"],
            namespace=namespace,
            obj=dict(obj),
            params=params,
            headers={"Content-Type": "application/apply-patch+yaml"},
        )

    def get(
        self, api_version: str, kind: str, name: str, namespace: str | None = None
    ) -> dict[str, Any] | None:
        """The object, or None if it does not exist."""
        res = resource_for(api_version, kind)
        try:
            return self._send(f"get {kind} {name}", "get", res, name=name, namespace=namespace)
        except CloudError as exc:
            if exc.status == "NotFound":
                return None
            raise

    def get_path(self, path: str, what: str) -> dict[str, Any] | None:
        """GET an API path that no kind describes (an aggregated API's read-only endpoint,
        such as Kueue's pending-workloads visibility API); None if the server answers 404."""
        from lightkube.core.generic_client import BasicRequest

        generic = self.client._client

        def call() -> dict[str, Any]:
            request = generic.build_adapter_request(BasicRequest(method="GET", url=path))
            response = generic.send(request)
            generic.raise_for_status(response)  # type: ignore[no-untyped-call]
            body = response.json() if response.content else {}
            return body if isinstance(body, dict) else {}

        try:
            out: dict[str, Any] = self._call(what, call)
        except CloudError as exc:
            if exc.status in ("NotFound", "404"):
                return None
            raise
        return out

    def list(
        self,
        api_version: str,
        kind: str,
        namespace: str | None = None,
        labels: Mapping[str, str] | None = None,
        fields: Mapping[str, str] | None = None,
    ) -> list[dict[str, Any]]:
        """Objects of a kind (all namespaces if `namespace` is "*"), following pagination.

        `labels` and `fields` are equality selectors: {"jobset.sigs.k8s.io/jobset-name": "w"},
        {"involvedObject.name": "w-slice-0-0-abcde"}.
        """
        res = resource_for(api_version, kind)
        method = "global_list" if namespace == "*" else "list"
        found: list[dict[str, Any]] = []
        params: dict[str, Any] = {
            "labelSelector": _selector(labels),
            "fieldSelector": _selector(fields),
            "limit": 500,
        }
        while True:
            page = self._send(f"list {kind}", method, res, namespace=namespace, params=params)
            found += page.get("items") or []
            params["continue"] = (page.get("metadata") or {}).get("continue")
            if not params["continue"]:
                return found

    def delete(
        self,
        api_version: str,
        kind: str,
        name: str,
        namespace: str | None = None,
        propagation: str = "Foreground",
    ) -> bool:
        """Delete (Foreground: dependents first); False if it was already gone."""
        res = resource_for(api_version, kind)
        params = {"propagationPolicy": propagation}
        try:
            self._send(
                f"delete {kind} {name}",
                "delete",
                res,
                name=name,
                namespace=namespace,
                params=params,
            )
        except CloudError as exc:
            if exc.status == "NotFound":
                return False
            raise
        return True

    def logs(
        self,
        pod: str,
        namespace: str = "default",
        *,
        container: str | None = None,
        follow: bool = False,
        since_seconds: int | None = None,
        tail_lines: int | None = None,
    ) -> Iterator[str]:
        """A pod's log lines, without their newlines; with follow, until the container ends."""
        lines = self._call(
            f"logs of pod {pod}",
            lambda: self.client.log(
                pod,
                namespace=namespace,
                container=container,
                follow=follow,
                since=since_seconds,
                tail_lines=tail_lines,
                newlines=False,
            ),
        )
        return iter(lines)

    def _send(
        self,
        what: str,
        method: str,
        res: Any,
        *,
        name: str | None = None,
        namespace: str | None = None,
        obj: Any = None,
        params: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
    ) -> dict[str, Any]:
        """One request built by lightkube (URL, auth, dry-run rules), answered as a plain dict.

        The answer is not decoded into lightkube's models: objects go back to the caller as
        the server sent them, whatever fields its version has.
        """
        generic = self.client._client  # the request builder behind Client's own methods
        if method == "global_list":
            method, namespace = "list", "*"

        def call() -> dict[str, Any]:
            request = generic.prepare_request(
                method, res, obj, name, namespace, params=params, headers=headers
            )
            response = generic.send(generic.build_adapter_request(request))
            generic.raise_for_status(response)  # type: ignore[no-untyped-call]
            body = response.json() if response.content else {}
            return body if isinstance(body, dict) else {}

        out: dict[str, Any] = self._call(what, call)
        return out

    def _call(self, what: str, fn: Callable[[], Any]) -> Any:
        import httpx2
        from lightkube import ApiError

        try:
            return fn()
        except ApiError as exc:
            raise api_error(what, exc.status.code or 0, exc.status.reason or "", str(exc)) from None
        except httpx2.HTTPStatusError as exc:
            code = exc.response.status_code
            raise api_error(what, code, "", exc.response.text[:200]) from None
        except httpx2.TransportError as exc:
            # lightkube's client ignores proxy variables (trust_env=False): no proxy to name
            raise CloudError(
                f"{what}: cannot reach the cluster at {self.endpoint}: {reach.reason(exc)}",
                hint="check the cluster is running and this machine can reach its endpoint "
                "(network, proxy settings HTTPS_PROXY and NO_PROXY)",
                status="Unavailable",
                retryable=True,
            ) from None


def api_error(what: str, code: int, reason: str, message: str) -> CloudError:
    """A Kubernetes API failure as a CloudError; `retryable` if waiting can fix it."""
    text = message.lower()
    webhook = any(phrase in text for phrase in WEBHOOK_NOT_READY)
    # 404 on a write: the kind's CRD was just created and is not served yet.
    unserved = code == 404 and "could not find the requested resource" in text
    retryable = webhook or unserved or code in (429, 503, 504)
    if webhook:
        hint = "a controller's webhook is not serving yet; xcli retries until it is"
    elif code == 403:
        hint = "your account needs Kubernetes Engine Developer (or Admin) on the project"
    elif code == 422:
        hint = "the object does not fit the API's schema; this is a bug in xcli, please report it"
    else:
        hint = "run the command again; if it persists, check the cluster's health"
    return CloudError(
        f"{what}: {code} {message}", hint=hint, status=reason or str(code), retryable=retryable
    )


# lightkube's resource registry is process-wide; creating a generic resource twice at once
# (two steps applying the same custom kind) would make the second registration fail.
_REGISTRY_LOCK = threading.Lock()


def resource_for(api_version: str, kind: str) -> Any:
    """The lightkube resource class that builds URLs for (apiVersion, kind)."""
    with _REGISTRY_LOCK:
        return _resource_for(api_version, kind)


def _resource_for(api_version: str, kind: str) -> Any:
    from lightkube.codecs import resource_registry
    from lightkube.core.exceptions import LoadResourceError
    from lightkube.generic_resource import create_global_resource, create_namespaced_resource

    found = resource_registry.get(api_version, kind)
    if found is not None:
        return found
    if (api_version, kind) in CUSTOM_KINDS:
        plural, namespaced = CUSTOM_KINDS[(api_version, kind)]
        group, _, version = api_version.rpartition("/")
        create = create_namespaced_resource if namespaced else create_global_resource
        return create(group, version, kind, plural)
    try:
        return resource_registry.load(api_version, kind)
    except (LoadResourceError, ImportError, AttributeError):
        raise CloudError(
            f"xcli does not know the Kubernetes kind {api_version} {kind}",
            hint="this is a bug in xcli, please report it",
        ) from None


def kind_for_plural(api_version: str, plural: str) -> str:
    """The kind of a custom resource xcli knows, from its plural (jobsets -> JobSet)."""
    for (version, kind), (name, _) in CUSTOM_KINDS.items():
        if (version, name) == (api_version, plural):
            return kind
    raise InternalError(f"xcli does not know the Kubernetes resource {api_version} {plural}")


def register_crd(crd: Mapping[str, Any]) -> None:
    """Teach resource_for the kinds a CustomResourceDefinition (as a dict) defines."""
    from lightkube.generic_resource import create_global_resource, create_namespaced_resource

    spec = crd["spec"]
    create = create_namespaced_resource if spec["scope"] == "Namespaced" else create_global_resource
    with _REGISTRY_LOCK:
        for version in spec["versions"]:
            create(spec["group"], version["name"], spec["names"]["kind"], spec["names"]["plural"])


def _selector(pairs: Mapping[str, str] | None) -> str | None:
    return ",".join(f"{k}={v}" for k, v in (pairs or {}).items()) or None


def _namespaced(res: Any) -> bool:
    from lightkube.core import resource as r

    return issubclass(res, (r.NamespacedResource, r.NamespacedSubResource))
