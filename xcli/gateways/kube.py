"""The Kubernetes API gateway: server-side apply, get, list, delete and logs, through lightkube.

Objects go in and come out as plain dicts, so nothing outside xcli/gateways/ sees lightkube.
Every apply is a server-side apply (PATCH, application/apply-patch+yaml, fieldManager=xcli,
force=true, fieldValidation=Strict: an unknown field is an error, not silently dropped).

Authentication is a bearer token on every request: by default a Google OAuth token from
google-auth's application default credentials, refreshed when it expires (GKE accepts it for
the cluster's IAM identity). The endpoint and CA certificate come from the GKE API's
clusters.get (`endpoint`, `masterAuth.clusterCaCertificate`); the caller passes them in.
Tests pass `transport=httpx2.MockTransport(...)` and see every request, with no socket.
"""

from __future__ import annotations

import base64
import ssl
import threading
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from xcli.errors import CloudError, ConfigError

if TYPE_CHECKING:
    import httpx2
    from lightkube import Client

TokenProvider = Callable[[], str]

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
# serving yet (k8s.md §3): a write is refused with 500 and one of these phrases.
WEBHOOK_NOT_READY = (
    "failed calling webhook",
    "conversion webhook",
    "no endpoints available",
    "connection refused",
)


def google_token_provider() -> TokenProvider:
    """A thread-safe provider of Google OAuth access tokens (application default credentials)."""
    lock = threading.Lock()
    state: dict[str, Any] = {}

    def token() -> str:
        import google.auth
        import google.auth.exceptions
        from google.auth.transport.requests import Request

        with lock:
            try:
                if "creds" not in state:
                    scopes = ["https://www.googleapis.com/auth/cloud-platform"]
                    state["creds"], _ = google.auth.default(scopes=scopes)
                creds = state["creds"]
                if not creds.valid:
                    creds.refresh(Request())
            except google.auth.exceptions.GoogleAuthError as exc:
                raise ConfigError(
                    f"no Google credentials for the Kubernetes API: {exc}",
                    hint="run `gcloud auth application-default login` or set "
                    "GOOGLE_APPLICATION_CREDENTIALS",
                ) from None
            return str(creds.token)

    return token


def _ssl_context(ca_cert: str) -> ssl.SSLContext:
    """The cluster CA as GKE returns it: base64 of a PEM certificate."""
    try:
        pem = base64.b64decode(ca_cert, validate=True).decode("ascii")
        return ssl.create_default_context(cadata=pem)
    except (ValueError, ssl.SSLError) as exc:
        raise CloudError(
            f"the cluster's CA certificate is not usable: {exc}",
            hint="check masterAuth.clusterCaCertificate of the cluster (clusters.get)",
        ) from None


def _bearer_transport(inner: httpx2.BaseTransport, token: TokenProvider) -> httpx2.BaseTransport:
    import httpx2

    class Bearer(httpx2.BaseTransport):
        """Adds a fresh token to every request; lightkube's own auth needs a static token."""

        def handle_request(self, request: httpx2.Request) -> httpx2.Response:
            request.headers["Authorization"] = f"Bearer {token()}"
            return inner.handle_request(request)

        def close(self) -> None:
            inner.close()

    return Bearer()


def build_client(
    endpoint: str,
    ca_cert: str | None,
    token: TokenProvider,
    transport: httpx2.BaseTransport | None = None,
    timeout: float = 30.0,
) -> Client:
    """A lightkube Client for https://<endpoint>, verifying the server with `ca_cert`."""
    import httpx2
    from lightkube import Client, KubeConfig
    from lightkube.config.models import Cluster, User

    server = endpoint if "://" in endpoint else f"https://{endpoint}"
    if transport is None:
        verify: ssl.SSLContext | bool = _ssl_context(ca_cert) if ca_cert else True
        transport = httpx2.HTTPTransport(verify=verify)
    config = KubeConfig.from_one(
        cluster=Cluster(server=server, certificate_auth_data=ca_cert), user=User()
    )
    return Client(
        config,
        namespace="default",
        field_manager="xcli",
        trust_env=False,
        timeout=httpx2.Timeout(timeout),
        transport=_bearer_transport(transport, token),
    )


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
        self, obj: Mapping[str, Any], *, force: bool = True, dry_run: bool = False
    ) -> dict[str, Any]:
        """Server-side apply `obj`; return the object as the server stored it."""
        from lightkube.types import PatchType

        res = resource_for(obj["apiVersion"], obj["kind"])
        meta = obj.get("metadata") or {}
        namespace = meta.get("namespace") or ("default" if _namespaced(res) else None)
        params = {
            "fieldManager": self.field_manager,
            "force": "true" if force else None,
            "fieldValidation": "Strict",
            "dryRun": "All" if dry_run else None,
        }
        # Client.patch cannot pass fieldValidation, so this goes one level down, to the same
        # request builder Client.apply uses.
        out = self._call(
            f"apply {obj['kind']} {meta.get('name')}",
            lambda: self.client._client.request(
                "patch",
                res=res,
                name=meta["name"],
                namespace=namespace,
                obj=dict(obj),
                headers={"Content-Type": PatchType.APPLY.value},
                params=params,
            ),
        )
        return _as_dict(out)

    def get(
        self, api_version: str, kind: str, name: str, namespace: str | None = None
    ) -> dict[str, Any] | None:
        """The object, or None if it does not exist."""
        res = resource_for(api_version, kind)
        try:
            out = self._call(
                f"get {kind} {name}", lambda: self.client.get(res, name, namespace=namespace)
            )
        except CloudError as exc:
            if exc.status == "NotFound":
                return None
            raise
        return _as_dict(out)

    def list(
        self,
        api_version: str,
        kind: str,
        namespace: str | None = None,
        labels: Mapping[str, str] | None = None,
    ) -> list[dict[str, Any]]:
        """Objects of a kind; namespace "*" means all namespaces."""
        res = resource_for(api_version, kind)
        found: list[dict[str, Any]] = self._call(
            f"list {kind}",
            lambda: [
                _as_dict(o)
                for o in self.client.list(
                    res, namespace=namespace, labels=dict(labels) if labels else None
                )
            ],
        )
        return found

    def delete(self, api_version: str, kind: str, name: str, namespace: str | None = None) -> bool:
        """Delete in the foreground; False if it was already gone."""
        from lightkube.types import CascadeType

        res = resource_for(api_version, kind)
        try:
            self._call(
                f"delete {kind} {name}",
                lambda: self.client.delete(
                    res, name, namespace=namespace, cascade=CascadeType.FOREGROUND
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
            raise CloudError(
                f"{what}: cannot reach the cluster at {self.endpoint}: {exc}",
                hint="check the cluster is running and this machine can reach its endpoint",
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


def resource_for(api_version: str, kind: str) -> Any:
    """The lightkube resource class that builds URLs for (apiVersion, kind)."""
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


def register_crd(crd: Mapping[str, Any]) -> None:
    """Teach resource_for the kinds a CustomResourceDefinition (as a dict) defines."""
    from lightkube.generic_resource import create_global_resource, create_namespaced_resource

    spec = crd["spec"]
    create = create_namespaced_resource if spec["scope"] == "Namespaced" else create_global_resource
    for version in spec["versions"]:
        create(spec["group"], version["name"], spec["names"]["kind"], spec["names"]["plural"])


def _namespaced(res: Any) -> bool:
    from lightkube.core import resource as r

    return issubclass(res, (r.NamespacedResource, r.NamespacedSubResource))


def _as_dict(obj: Any) -> dict[str, Any]:
    if obj is None:
        return {}
    if isinstance(obj, dict):
        return dict(obj)
    return dict(obj.to_dict())
