"""The Cloud TPU API: tpu_v2 over REST, plus raw v2alpha1 REST for what tpu_v2 cannot say.

Requests are built from the plan's REST bodies with json_format.ParseDict, so what runs is what
the dry-run printed; answers come back as REST JSON dicts (camelCase, enums by name), so nothing
above this module sees protobuf. The TPU client has no default timeout (its generated
transports/base.py in google-cloud-tpu 1.28.0 sets none): every call passes one. Flex-start
exists only in v2alpha1 (https://cloud.google.com/tpu/docs/request-using-flex-start), which
google-cloud-tpu cannot send over REST, so those bodies go through google-auth's
AuthorizedSession as they are.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, TypeVar
from urllib.parse import parse_qs, urlsplit

from xcli.errors import CloudError
from xcli.gateways.backoff import READ_POLICY, Timing, current_cancel, retry_call
from xcli.gateways.ssh import reach
from xcli.gateways.tpu.errors import translate

T = TypeVar("T")

SCOPES = ["https://www.googleapis.com/auth/cloud-platform"]
DEFAULT_ROOT = "https://tpu.googleapis.com"


def resource_name(url: str) -> str:
    """https://tpu.googleapis.com/v2/projects/p/... -> projects/p/..."""
    path = urlsplit(url).path.lstrip("/")
    return path.split("/", 1)[1]


class TpuGateway:
    def __init__(
        self,
        zone: str,
        *,
        credentials: Any = None,
        endpoint: str | None = None,
        timeout: float = 60.0,
        timing: Timing | None = None,
    ) -> None:
        self.zone = zone
        self._credentials = credentials
        self.endpoint = endpoint
        self.timeout = timeout
        self.timing = timing or Timing()

    @property
    def call_options(self) -> dict[str, Any]:
        """What every GAPIC call passes: retry=None, so google-api-core's default retry never
        runs underneath xcli's (backoff.py), and an explicit timeout (the client has none)."""
        return {"retry": None, "timeout": self.timeout}

    # -- plumbing ---------------------------------------------------------------------------

    @functools.cached_property
    def credentials(self) -> Any:
        if self._credentials is not None:
            return self._credentials
        import google.auth
        from google.auth.exceptions import DefaultCredentialsError

        try:
            creds, _ = google.auth.default(scopes=SCOPES)
        except DefaultCredentialsError as exc:
            raise CloudError(
                f"no Google credentials: {exc}",
                hint="log in with application default credentials (or set "
                "GOOGLE_APPLICATION_CREDENTIALS); `xcli cluster ... --dry-run` needs none",
                status="UNAUTHENTICATED",
            ) from None
        return creds

    @functools.cached_property
    def client(self) -> Any:
        from google.cloud import tpu_v2

        options = {"api_endpoint": self.endpoint} if self.endpoint else None
        return tpu_v2.TpuClient(
            credentials=self.credentials, transport="rest", client_options=options
        )

    @functools.cached_property
    def session(self) -> Any:
        from google.auth.transport.requests import AuthorizedSession

        return AuthorizedSession(self.credentials)  # type: ignore[no-untyped-call]

    @contextmanager
    def _errors(self) -> Iterator[None]:
        from google.api_core import exceptions

        try:
            yield
        except exceptions.GoogleAPICallError as exc:
            raise translate(exc, self.zone) from exc
        except exceptions.RetryError as exc:  # only if a retry ran: its last attempt's error
            if isinstance(exc.cause, exceptions.GoogleAPICallError):
                raise translate(exc.cause, self.zone) from exc.cause
            down = reach.as_cloud_error(exc, "tpu.googleapis.com")
            if down is None:
                raise
            raise down from exc
        except CloudError:
            raise
        except Exception as exc:
            down = reach.as_cloud_error(exc, "tpu.googleapis.com")
            if down is None:
                raise
            raise down from exc

    def _read(self, call: Callable[[], T]) -> T:
        """An idempotent read, retried briefly (READ_POLICY) on 5xx, rate limits and hosts that
        cannot be reached; the last error (already a CloudError) is let through."""

        def worth_retrying(exc: BaseException) -> bool:
            return isinstance(exc, CloudError) and exc.retryable

        return retry_call(
            call,
            worth_retrying,
            self.timing,
            READ_POLICY,
            current_cancel(),
            lambda _m: None,
            what="Cloud TPU API",
        )

    def _url(self, url: str) -> str:
        if not self.endpoint:
            return url
        parts = urlsplit(url)
        return self.endpoint.rstrip("/") + parts.path + (f"?{parts.query}" if parts.query else "")

    def raw(self, method: str, url: str, body: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """One REST call through AuthorizedSession; errors raised like the GAPIC client's."""
        from google.api_core import exceptions

        with self._errors():
            response = self.session.request(method, self._url(url), json=body, timeout=self.timeout)
            if response.status_code >= 400:
                raise exceptions.from_http_response(response)  # type: ignore[no-untyped-call]
            data: dict[str, Any] = response.json() if response.content else {}
            return data

    @staticmethod
    def _dict(message: Any) -> dict[str, Any]:
        from google.protobuf import json_format

        data: dict[str, Any] = json_format.MessageToDict(type(message).pb(message))
        return data

    # -- queued resources -------------------------------------------------------------------

    def create_queued_resource(self, url: str, body: Mapping[str, Any]) -> str:
        """POST .../queuedResources?queuedResourceId=ID; returns the operation name."""
        if "/v2alpha1/" in url:
            return str(self.raw("POST", url, body).get("name", ""))
        from google.cloud import tpu_v2
        from google.protobuf import json_format

        parts = urlsplit(url)
        parent = resource_name(url).rsplit("/queuedResources", 1)[0]
        query = parse_qs(parts.query)
        resource = tpu_v2.QueuedResource()
        json_format.ParseDict(dict(body), tpu_v2.QueuedResource.pb(resource))
        with self._errors():
            operation = self.client.create_queued_resource(
                parent=parent,
                queued_resource_id=query["queuedResourceId"][0],
                queued_resource=resource,
                **self.call_options,
            )
        return str(operation.operation.name)

    def get_queued_resource(self, name: str) -> dict[str, Any] | None:
        """The queued resource, or None when it does not exist."""
        from google.api_core import exceptions

        def once() -> dict[str, Any]:
            with self._errors():
                return self._dict(self.client.get_queued_resource(name=name, **self.call_options))

        try:
            return self._read(once)
        except CloudError as exc:
            if isinstance(exc.__cause__, exceptions.NotFound):
                return None
            raise

    def get_queued_resource_alpha(self, name: str) -> dict[str, Any]:
        """v2alpha1 view of a queued resource: adds provisioningModel and runDuration."""
        return self._read(lambda: self.raw("GET", f"{DEFAULT_ROOT}/v2alpha1/{name}"))

    def list_queued_resources(self, parent: str) -> list[dict[str, Any]]:
        def once() -> list[dict[str, Any]]:
            with self._errors():
                pager = self.client.list_queued_resources(parent=parent, **self.call_options)
                return [self._dict(qr) for qr in pager]

        return self._read(once)

    def delete_queued_resource(self, name: str, force: bool = True) -> bool:
        """DELETE, ?force=true by default (the nodes go too). False when it was already gone."""
        from google.api_core import exceptions
        from google.cloud import tpu_v2

        request = tpu_v2.DeleteQueuedResourceRequest(name=name, force=force)
        try:
            with self._errors():
                self.client.delete_queued_resource(request=request, **self.call_options)
        except CloudError as exc:
            if isinstance(exc.__cause__, exceptions.NotFound):
                return False
            raise
        return True

    # -- nodes ------------------------------------------------------------------------------

    def get_node(self, name: str) -> dict[str, Any]:
        def once() -> dict[str, Any]:
            with self._errors():
                return self._dict(self.client.get_node(name=name, **self.call_options))

        return self._read(once)

    def set_node_metadata(self, name: str, metadata: Mapping[str, str]) -> str:
        """PATCH ?updateMask=metadata: the whole map is replaced, so pass all of it."""
        from google.cloud import tpu_v2
        from google.protobuf import field_mask_pb2

        node = tpu_v2.Node(name=name, metadata=dict(metadata))
        with self._errors():
            operation = self.client.update_node(
                node=node,
                update_mask=field_mask_pb2.FieldMask(paths=["metadata"]),
                **self.call_options,
            )
        return str(operation.operation.name)

    def get_operation(self, name: str) -> dict[str, Any]:
        """GET v2/{operation} as REST JSON. Raw, because the client would unpack the operation's
        `response` (a Node) strictly (google-api-core's OperationsRestTransport parses with
        ignore_unknown_fields=False); a field newer than the client breaks that."""
        return self._read(lambda: self.raw("GET", f"{DEFAULT_ROOT}/v2/{name}"))

    def guest_attributes(self, name: str) -> list[dict[str, Any]]:
        """Every worker's guest attributes, in worker order."""

        def once() -> Any:
            with self._errors():
                request = {"name": name}
                return self.client.get_guest_attributes(request=request, **self.call_options)

        return list(self._dict(self._read(once)).get("guestAttributes", []))
