"""Blob uploads of the registry client (gateways/registry/client.py): whole in the closing PUT up
to one chunk, else chunked PATCHes, going on after a dropped connection from the range the
registry says it kept (the distribution spec's upload status GET), or starting the blob over in
a new session when the registry no longer knows the old one (distribution 2.8 after a partial
PATCH: 404 BLOB_UPLOAD_INVALID)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from xcli.gateways.registry.client import RESUMES, Registry, RegistryError, _check, _push
from xcli.image.reference import ImageRef


def upload(
    reg: Registry,
    image: ImageRef,
    digest: str,
    path: Path,
    location: str,
    progress: Callable[[int], None] | None = None,
) -> None:
    """Send `path` in chunks; after a dropped connection ask what arrived and go on. A
    blob of one chunk or less goes in the closing PUT itself (monolithic: one request
    fewer per blob), and starts over in a new session if the connection drops."""
    size, offset, resumes = path.stat().st_size, 0, 0
    if size <= reg.chunk:
        _monolithic(reg, image, digest, path, location, progress)
        return
    with path.open("rb") as src:
        while offset < size:
            src.seek(offset)
            data = src.read(reg.chunk)
            try:
                resp = _patch(reg, image, location, offset, data)
            except OSError as exc:  # requests' ConnectionError is an OSError
                resumes += 1
                if resumes > RESUMES:
                    raise RegistryError(
                        f"{image}: upload of {digest} kept failing: {exc}"
                    ) from None
                location, offset = _status(reg, image, digest, location)
                reg.resumed.append((digest, offset))
                continue
            if resp.status_code in (404, 416) and resumes and resumes < RESUMES:
                # the broken request was still being written when the status was read
                # (its bytes landed after): the session no longer matches, start over
                resumes += 1
                location, offset = reg.start(image, digest) or location, 0
                reg.resumed.append((digest, 0))
                continue
            _check(image, resp, expect=(202,))
            location = resp.headers.get("Location", location)
            offset += len(data)
            reg.count_sent(len(data))
            if progress:
                progress(len(data))
    sep = "&" if "?" in location else "?"
    resp = reg.request(
        "PUT",
        image,
        f"{location}{sep}digest={digest}",
        scope=_push(image),
        headers={"Content-Length": "0"},
    )
    _check(image, resp, expect=(201,))


def _patch(reg: Registry, image: ImageRef, location: str, offset: int, data: bytes) -> Any:
    return reg.request(
        "PATCH",
        image,
        location,
        scope=_push(image),
        data=data,
        headers={
            "Content-Type": "application/octet-stream",
            "Content-Range": f"{offset}-{offset + len(data) - 1}",
            "Content-Length": str(len(data)),
        },
    )


def _monolithic(
    reg: Registry,
    image: ImageRef,
    digest: str,
    path: Path,
    location: str,
    progress: Callable[[int], None] | None,
) -> None:
    data = path.read_bytes()
    for attempt in range(RESUMES + 1):
        sep = "&" if "?" in location else "?"
        try:
            resp = reg.request(
                "PUT",
                image,
                f"{location}{sep}digest={digest}",
                scope=_push(image),
                data=data,
                headers={"Content-Type": "application/octet-stream"},
            )
        except OSError as exc:
            if attempt == RESUMES:
                raise RegistryError(f"{image}: upload of {digest} kept failing: {exc}") from None
            reg.resumed.append((digest, 0))
            fresh = reg.start(image, digest)
            assert fresh is not None  # no mount asked: always a session
            location = fresh
            continue
        _check(image, resp, expect=(201,))
        reg.count_sent(len(data))
        if progress:
            progress(len(data))
        return


def _status(reg: Registry, image: ImageRef, digest: str, location: str) -> tuple[str, int]:
    """Where to go on after a dropped PATCH: the spec's status GET gives the range kept.
    A registry that no longer knows the session (distribution 2.8 refuses a `_state`
    whose offset no longer matches what it wrote: 404 BLOB_UPLOAD_INVALID) gets the
    blob again from the start, in a new session."""
    try:
        resp = reg.request("GET", image, location, scope=_push(image))
    except OSError:
        resp = None
    if resp is not None and resp.status_code == 204:
        kept = resp.headers.get("Range", "")
        offset = int(kept.split("-")[1]) + 1 if "-" in kept else 0
        return resp.headers.get("Location", location), offset
    if resp is not None and resp.status_code in (401, 403):
        _check(image, resp, expect=(204,))
    fresh = reg.start(image, digest)
    assert fresh is not None  # no mount asked: always a session
    return fresh, 0
