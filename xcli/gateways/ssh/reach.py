"""A host that cannot be reached, as one CloudError naming the host, the reason and the proxy.

Failing to reach Google (or a cluster's API server) surfaces as many exception types, depending
on which layer noticed: requests' ConnectionError / ProxyError / Timeout (raw REST and the GAPIC
REST transport), google-auth's TransportError (a token refresh, wrapping the requests error),
RefreshError (the token endpoint answered, but not with a token), google-api-core's RetryError
(wrapping the last attempt's error), httpx's TransportError (the Kubernetes API), and plain
OSError (socket.gaierror, ConnectionRefusedError). Each gateway family maps them here, in one
place, so `cluster list` without a route to Google is exit 1 with one line and a hint, not a
traceback. Classes are recognised by name along the MRO, so nothing heavy is imported.
"""

from __future__ import annotations

import os
import re

from xcli.errors import CloudError

_TRANSPORT = {
    "requests.exceptions.ConnectionError",
    "requests.exceptions.Timeout",
    "requests.exceptions.ChunkedEncodingError",
    "google.auth.exceptions.TransportError",
    "httpx2.TransportError",
    "httpx.TransportError",
    "urllib3.exceptions.HTTPError",
    "builtins.ConnectionError",
    "builtins.TimeoutError",
    "socket.gaierror",
}
_HOST = re.compile(r"host='([^']+)'|https?://([^/:'\s]+)")
_PROXY_VARS = ("HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy", "HTTP_PROXY", "http_proxy")
_REASONS = (
    (re.compile(r"Tunnel connection failed: (\d{3}[^'\")]*)", re.I), "the proxy answered {0}"),
    (re.compile(r"Unable to connect to proxy", re.I), "the proxy refused the connection"),
    (
        re.compile(r"resolve|Name or service not known|nodename nor servname|getaddrinfo", re.I),
        "its name does not resolve",
    ),
    (re.compile(r"Connection refused", re.I), "connection refused"),
    (re.compile(r"timed out|Timeout", re.I), "no answer (timed out)"),
    (
        re.compile(r"RemoteDisconnected|closed connection|Connection aborted|reset by peer", re.I),
        "the connection was closed without an answer",
    ),
    (re.compile(r"SSL|certificate", re.I), "the TLS handshake failed"),
)


def _names(exc: BaseException) -> set[str]:
    return {f"{c.__module__}.{c.__name__}" for c in type(exc).__mro__}


def _chain(exc: BaseException) -> list[BaseException]:
    """exc and what it wraps (cause, context, an exception passed as an argument)."""
    seen: list[BaseException] = []
    todo: list[BaseException] = [exc]
    while todo and len(seen) < 12:
        item = todo.pop(0)
        if any(item is s for s in seen):
            continue
        seen.append(item)
        context = None if item.__suppress_context__ else item.__context__
        todo += [e for e in (item.__cause__, context) if e is not None]
        todo += [a for a in getattr(item, "args", ()) if isinstance(a, BaseException)]
        last = getattr(item, "cause", None)  # google.api_core RetryError.cause
        if isinstance(last, BaseException):
            todo.append(last)
    return seen


def is_unreachable(exc: BaseException) -> bool:
    """The request never got an HTTP answer from the host: DNS, refused, proxy, timeout."""
    return any(_names(e) & _TRANSPORT for e in _chain(exc))


_RESET = re.compile(
    r"reset by peer|Connection aborted|RemoteDisconnected|ConnectionResetError|"
    r"BrokenPipe|IncompleteRead|closed connection without response",
    re.I,
)


def is_reset(exc: BaseException) -> bool:
    """The host was reached, then the connection dropped (a reset, a closed keep-alive, a
    broken pipe): a flaky link, not a host that cannot be reached."""
    if not is_unreachable(exc):
        return False
    if any(isinstance(e, (ConnectionResetError, BrokenPipeError)) for e in _chain(exc)):
        return True
    return bool(_RESET.search(_text(exc)))


def _text(exc: BaseException) -> str:
    return " | ".join(f"{type(e).__name__}: {e}" for e in _chain(exc))


def _host(exc: BaseException) -> str:
    for item in _chain(exc):
        try:  # httpx raises RuntimeError for a request it was not given
            url = getattr(getattr(item, "request", None), "url", None)
        except Exception:
            url = None
        if url is not None:
            found = _HOST.search(str(url))
            if found:
                return found.group(1) or found.group(2)
    found = _HOST.search(_text(exc))
    return (found.group(1) or found.group(2)) if found else ""


def _reason(text: str) -> str:
    for pattern, words in _REASONS:
        found = pattern.search(text)
        if found:
            return words.format(*(g.strip() for g in found.groups()))
    return "no connection"


def reason(exc: BaseException) -> str:
    """Why the host was not reached, in a few words (its name does not resolve, ...)."""
    return _reason(_text(exc))


def _proxy(text: str) -> str:
    """Which proxy the request went through: requests takes it from these variables (Google's
    APIs are all HTTPS, so HTTP_PROXY comes last)."""
    for var in _PROXY_VARS:
        if os.environ.get(var):
            return f" through the proxy {os.environ[var]} ({var})"
    return " through a proxy" if "proxy" in text.lower() else ""


HINT = (
    "check this machine's network and proxy settings (HTTPS_PROXY, NO_PROXY); commands that "
    "change things show what they would send with --dry-run, which needs no network"
)


def unreachable(exc: BaseException, host: str = "") -> CloudError:
    """The one-line error for a host that could not be reached."""
    text = _text(exc)
    where = _host(exc) or host or "the API"
    return CloudError(
        f"cannot reach {where}{_proxy(text)}: {_reason(text)}",
        hint=HINT,
        status="UNAVAILABLE",
        retryable=True,
    )


def refresh_failed(exc: BaseException) -> CloudError:
    """google-auth could not get an access token (the token endpoint said no, or was not
    reached)."""
    if is_unreachable(exc):
        return unreachable(exc, "the Google token endpoint")
    detail = str(exc).split("\n")[0][:200]
    return CloudError(
        f"cannot get a Google access token: {detail}",
        hint="log in again (gcloud auth application-default login) or check "
        "GOOGLE_APPLICATION_CREDENTIALS; --dry-run needs no credentials",
        status="UNAUTHENTICATED",
    )


def as_cloud_error(exc: BaseException, host: str = "") -> CloudError | None:
    """A reach or token failure as a CloudError; None when it is something else."""
    names = set().union(*(_names(e) for e in _chain(exc)))
    if "google.auth.exceptions.RefreshError" in names:
        return refresh_failed(exc)
    if is_unreachable(exc):
        return unreachable(exc, host)
    return None
