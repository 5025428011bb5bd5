"""The Kubernetes API gateway: server-side apply, get, list, delete and logs, through lightkube.

Objects go in and come out as plain dicts, so nothing outside xcli/gateways/ sees lightkube.
Every apply is a server-side apply (PATCH, application/apply-patch+yaml, fieldManager=xcli,
force=true, fieldValidation=Strict: an unknown field is an error, not silently dropped).

Only lightkube's public API is used: `Client.apply` (server-side apply), `get`, `list`, `delete`
and `log`, with generic resources (lightkube.generic_resource) for custom and built-in kinds
alike, so answers stay the server's JSON. What lightkube has no public API for is done on the
HTTP layer: `fieldValidation=Strict` on applies (kube_auth.py), and GETs of paths no kind
describes, such as Kueue's visibility API (`get_path`, a plain client on the same connection).

Connection and authentication (cluster CA, Google OAuth bearer token) are in kube_auth.py.
Tests pass `transport=httpx2.MockTransport(...)` and see every request, with no socket.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from xcli.errors import CloudError, InternalError
from xcli.gateways.kube.auth import (
    TokenProvider,
    connection,
    google_token_provider,
    http_client,
    lightkube_client,
)
from xcli.gateways.ssh import reach

if TYPE_CHECKING:
    import httpx2
    from lightkube import Client

    from xcli.gateways.kube.exec import ExecTarget
    from xcli.gateways.kube.portforward import Target as PortForwardTarget

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
    # the NVIDIA DRA driver's multi-node NVLink domain (A4X workloads)
    ("resource.nvidia.com/v1beta1", "ComputeDomain"): ("computedomains", True),
    # GKE multi-networking (GPUDirect clusters), cluster-scoped: `kubectl get
    # gkenetworkparamsets`, `networks.networking.gke.io`
    # (https://github.com/GoogleCloudPlatform/gke-networking-api, apis/network/v1)
    ("networking.gke.io/v1", "GKENetworkParamSet"): ("gkenetworkparamsets", False),
    ("networking.gke.io/v1", "Network"): ("networks", False),
    # KubeRay's RayCluster, served by GKE's Ray Operator add-on (plan/gke/ray.py; ray-project/
    # kuberay ray-operator/config/crd/bases/ray.io_rayclusters.yaml: plural rayclusters)
    ("ray.io/v1", "RayCluster"): ("rayclusters", True),
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
        import lightkube.config.models
        import lightkube.core.resource
        import lightkube.generic_resource
        import lightkube.types  # noqa: F401


class KubeApi:
    """One cluster's Kubernetes API. Thread-safe: handlers share it across steps."""

    def __init__(
        self,
        endpoint: str,
        ca_cert: str | None,
        token: TokenProvider | None = None,
        *,
        transport: httpx2.BaseTransport | None = None,
        field_manager: str = "xcli",
    ) -> None:
        load_lightkube()
        self.endpoint = endpoint
        self.field_manager = field_manager
        self._ca_cert = ca_cert
        self._token = token
        self._transport = transport
        self._connected: tuple[Client, httpx2.Client] | None = None
        self._lock = threading.Lock()

    def _connect(self) -> tuple[Client, httpx2.Client]:
        """Both clients over one connection, built on first use (credentials are looked up
        only then)."""
        with self._lock:
            if self._connected is None:
                token = self._token or google_token_provider()
                server, wire = connection(self.endpoint, self._ca_cert, token, self._transport)
                self._connected = (lightkube_client(server, wire), http_client(server, wire))
            return self._connected

    def stream_target(self, namespace: str, pod: str, port: int) -> PortForwardTarget:
        """Where a port-forward to `pod` goes, trusted and authenticated as every other
        request to this cluster (gateways/kube/portforward.py; it does not go through httpx)."""
        from xcli.gateways.kube.auth import _ssl_context as ssl_context
        from xcli.gateways.kube.portforward import Target

        server = self.endpoint if "://" in self.endpoint else f"https://{self.endpoint}"
        context = ssl_context(self._ca_cert) if self._ca_cert else None
        token = self._token or google_token_provider()
        return Target(server, context, token, namespace, pod, port)

    def exec_target(self, namespace: str, pod: str, path: str) -> ExecTarget:
        """Where a pods/exec stream at `path` goes (gateways/kube/exec.py), trusted and
        authenticated as `stream_target`'s."""
        from dataclasses import fields

        from xcli.gateways.kube.exec import ExecTarget

        base = self.stream_target(namespace, pod, 0)
        values = {f.name: getattr(base, f.name) for f in fields(base)}
        return ExecTarget(**values, exec_path=path)

    @property
    def client(self) -> Client:
        """The lightkube Client: every request but `get_path`'s."""
        return self._connect()[0]

    @property
    def http(self) -> httpx2.Client:
        """A plain HTTP client on the same connection, for paths no kind describes."""
        return self._connect()[1]

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
        # A generic resource is the dict itself, sent as it is. Its namespace is its
        # metadata.namespace, or the client's ("default") for a namespaced kind.
        stored: dict[str, Any] = self._call(
            f"apply {obj['kind']} {meta.get('name')}",
            lambda: _plain(
                self.client.apply(
                    res(dict(obj)),
                    field_manager=field_manager or self.field_manager,
                    force=force,
                    dry_run=dry_run,
                )
            ),
        )
        return stored

    def get(
        self, api_version: str, kind: str, name: str, namespace: str | None = None
    ) -> dict[str, Any] | None:
        """The object, or None if it does not exist."""
        res = resource_for(api_version, kind)
        try:
            found: dict[str, Any] = self._call(
                f"get {kind} {name}",
                lambda: _plain(self.client.get(res, name, namespace=namespace)),
            )
        except CloudError as exc:
            if exc.status == "NotFound":
                return None
            raise
        return found

    def get_path(self, path: str, what: str) -> dict[str, Any] | None:
        """GET an API path that no kind describes (an aggregated API's read-only endpoint,
        such as Kueue's pending-workloads visibility API); None if the server answers 404."""
        try:
            out: dict[str, Any] = self._call(what, lambda: get_json(self.http, path))
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
        found: list[dict[str, Any]] = self._call(
            f"list {kind}",
            lambda: [
                _plain(item)
                for item in self.client.list(
                    res,
                    namespace=namespace,
                    chunk_size=500,  # lightkube follows `continue` from page to page
                    labels=dict(labels or {}),
                    fields=dict(fields or {}),
                )
            ],
        )
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
        from lightkube.types import CascadeType

        res = resource_for(api_version, kind)
        try:
            self._call(
                f"delete {kind} {name}",
                lambda: self.client.delete(
                    res, name, namespace=namespace, cascade=CascadeType(propagation)
                ),
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
        timestamps: bool = False,
    ) -> Iterator[str]:
        """A pod's log lines, without their newlines; with follow, until the container ends.
        With timestamps, each line starts with the RFC 3339 time the kubelet read it."""
        lines = self._call(
            f"logs of pod {pod}",
            lambda: self.client.log(
                pod,
                namespace=namespace,
                container=container,
                follow=follow,
                since=since_seconds,
                tail_lines=tail_lines,
                timestamps=timestamps,
                newlines=False,
            ),
        )
        return iter(lines)

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


def get_json(http: httpx2.Client, path: str) -> dict[str, Any]:
    """GET `path` and answer its JSON object, failing as lightkube's own requests fail
    (lightkube.ApiError when the server answers a Status, HTTPStatusError otherwise)."""
    from lightkube import ApiError

    response = http.get(path)
    if response.is_error and response.headers.get("Content-Type") == "application/json":
        raise ApiError(request=response.request, response=response)
    response.raise_for_status()
    body = response.json() if response.content else {}
    return body if isinstance(body, dict) else {}


def api_error(what: str, code: int, reason: str, message: str) -> CloudError:
    """A Kubernetes API failure as a CloudError; `retryable` if waiting can fix it."""
    text = message.lower()
    webhook = any(phrase in text for phrase in WEBHOOK_NOT_READY)
    # 404 on a write: the kind's CRD was just created and is not served yet.
    unserved = code == 404 and "could not find the requested resource" in text
    # 500 and 502 too: every call xcli makes here is idempotent (server-side apply, get,
    # delete), and an apiserver answers 500 while etcd changes leader (issue 37)
    retryable = webhook or unserved or code in (429, 500, 502, 503, 504)
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
    from lightkube.core import resource as r
    from lightkube.generic_resource import (
        create_global_resource,
        create_namespaced_resource,
        get_generic_resource,
    )

    found = get_generic_resource(api_version, kind)  # type: ignore[no-untyped-call]
    if found is not None:
        return found
    if (api_version, kind) in CUSTOM_KINDS:
        plural, namespaced = CUSTOM_KINDS[(api_version, kind)]
    else:
        # A built-in kind is a generic resource too, shaped like lightkube's model of it: a
        # model would decode answers into its fields (dropping those it does not know, refusing
        # objects without a required one); a generic resource keeps the server's JSON as it is.
        model = builtin_model(api_version, kind)
        if model is None:
            raise CloudError(
                f"xcli does not know the Kubernetes kind {api_version} {kind}",
                hint="this is a bug in xcli, please report it",
            )
        plural, namespaced = r.api_info(model).plural, issubclass(model, r.NamespacedResource)
    group, _, version = api_version.rpartition("/")
    create = create_namespaced_resource if namespaced else create_global_resource
    return create(group, version, kind, plural)


def builtin_model(api_version: str, kind: str) -> Any:
    """lightkube's model class of a built-in kind (lightkube.resources.apps_v1.Deployment for
    apps/v1 Deployment), None if lightkube has none. Looked up by module, as lightkube's own
    registry does, without registering it: xcli's registry entries are generic resources."""
    import importlib

    from lightkube.core import resource as r

    group, _, version = api_version.rpartition("/")
    if "." in group and not group.endswith(".k8s.io"):
        return None  # not a Kubernetes API group: a custom resource
    module = f"{group.removesuffix('.k8s.io').replace('.', '_') or 'core'}_{version}".lower()
    try:
        model = getattr(importlib.import_module(f"lightkube.resources.{module}"), kind)
    except (ImportError, AttributeError):
        return None
    return model if isinstance(model, type) and issubclass(model, r.Resource) else None


# Built-in kinds xcli deletes by plural (a team's namespace; a storage's PV, PVC and record;
# `cluster preload-image`'s DaemonSet): (apiVersion, plural) -> kind.
BUILTIN_PLURALS = {
    ("v1", "namespaces"): "Namespace",
    ("v1", "configmaps"): "ConfigMap",
    ("v1", "persistentvolumes"): "PersistentVolume",
    ("v1", "persistentvolumeclaims"): "PersistentVolumeClaim",
    ("apps/v1", "daemonsets"): "DaemonSet",
}


def kind_for_plural(api_version: str, plural: str) -> str:
    """The kind of a resource xcli knows, from its plural (jobsets -> JobSet)."""
    for (version, kind), (name, _) in CUSTOM_KINDS.items():
        if (version, name) == (api_version, plural):
            return kind
    if (api_version, plural) in BUILTIN_PLURALS:
        return BUILTIN_PLURALS[(api_version, plural)]
    raise InternalError(f"xcli does not know the Kubernetes resource {api_version} {plural}")


def register_crd(crd: Mapping[str, Any]) -> None:
    """Teach resource_for the kinds a CustomResourceDefinition (as a dict) defines."""
    from lightkube.generic_resource import create_global_resource, create_namespaced_resource

    spec = crd["spec"]
    create = create_namespaced_resource if spec["scope"] == "Namespaced" else create_global_resource
    with _REGISTRY_LOCK:
        for version in spec["versions"]:
            create(spec["group"], version["name"], spec["names"]["kind"], spec["names"]["plural"])


def _plain(obj: Any) -> dict[str, Any]:
    """A generic resource (every kind xcli uses is one, see resource_for) as the plain dict the
    server sent."""
    out: dict[str, Any] = obj.to_dict()
    return out
