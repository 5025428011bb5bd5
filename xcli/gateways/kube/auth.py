"""How xcli connects to a cluster's Kubernetes API: TLS with the cluster's CA, a bearer token.

The endpoint and CA certificate come from the GKE API's clusters.get (`endpoint`,
`masterAuth.clusterCaCertificate`, base64 PEM). The token is, by default, a Google OAuth access
token from google-auth's application default credentials, refreshed when it expires; GKE maps
it to the caller's IAM identity. No kubeconfig, no gcloud, no exec plugin.
"""

from __future__ import annotations

import base64
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from xcli.errors import CloudError, ConfigError
from xcli.gateways.ssh import reach

if TYPE_CHECKING:
    import ssl

    import httpx2
    from lightkube import Client

TokenProvider = Callable[[], str]


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
            except (
                google.auth.exceptions.TransportError,
                google.auth.exceptions.RefreshError,
            ) as exc:  # credentials exist; the token endpoint was not reached or said no
                raise reach.refresh_failed(exc) from None
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
    import ssl  # on first connection: a dry-run never opens one

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


def _strict_apply_transport(inner: httpx2.BaseTransport) -> httpx2.BaseTransport:
    import httpx2

    class StrictApply(httpx2.BaseTransport):
        """Adds fieldValidation=Strict to every server-side apply.

        lightkube's public Client.patch/apply have no parameter for it (they set only force,
        fieldManager and dryRun, see patch() in
        https://github.com/gtsystem/lightkube/blob/master/lightkube/core/client.py), and
        without it the API server drops an unknown field with a warning instead of refusing
        the object (https://kubernetes.io/docs/reference/using-api/api-concepts/#field-validation).
        This is the one place where xcli's requests differ from what lightkube builds.
        """

        def handle_request(self, request: httpx2.Request) -> httpx2.Response:
            if (
                request.method == "PATCH"
                and request.headers.get("Content-Type") == "application/apply-patch+yaml"
            ):
                request.url = request.url.copy_add_param("fieldValidation", "Strict")
            return inner.handle_request(request)

        def close(self) -> None:
            inner.close()

    return StrictApply()


def connection(
    endpoint: str,
    ca_cert: str | None,
    token: TokenProvider,
    transport: httpx2.BaseTransport | None = None,
) -> tuple[str, httpx2.BaseTransport]:
    """The server URL https://<endpoint> and the transport every request to it goes through:
    TLS verified with `ca_cert`, a fresh bearer token, strict field validation on applies."""
    import httpx2

    server = endpoint if "://" in endpoint else f"https://{endpoint}"
    if transport is None:
        verify: ssl.SSLContext | bool = _ssl_context(ca_cert) if ca_cert else True
        transport = httpx2.HTTPTransport(verify=verify)
    # TLS verification and auth live in the transport (lightkube's own settings would apply
    # only to a transport it builds itself).
    return server, _bearer_transport(_strict_apply_transport(transport), token)


def lightkube_client(server: str, transport: httpx2.BaseTransport, timeout: float = 30.0) -> Client:
    """A lightkube Client sending every request through `transport`."""
    import httpx2
    from lightkube import Client, KubeConfig
    from lightkube.config.models import Cluster, User

    config = KubeConfig.from_one(cluster=Cluster(server=server), user=User())
    return Client(
        config,
        namespace="default",
        field_manager="xcli",
        trust_env=False,
        timeout=httpx2.Timeout(timeout),
        transport=transport,
    )


def http_client(
    server: str, transport: httpx2.BaseTransport, timeout: float = 30.0
) -> httpx2.Client:
    """A plain HTTP client like lightkube's own (no proxy variables, same timeout), for the
    paths no lightkube resource describes."""
    import httpx2

    return httpx2.Client(
        base_url=server, transport=transport, timeout=httpx2.Timeout(timeout), trust_env=False
    )


def build_client(
    endpoint: str,
    ca_cert: str | None,
    token: TokenProvider,
    transport: httpx2.BaseTransport | None = None,
    timeout: float = 30.0,
) -> Client:
    """A lightkube Client for https://<endpoint>, verifying the server with `ca_cert`."""
    return lightkube_client(*connection(endpoint, ca_cert, token, transport), timeout=timeout)
