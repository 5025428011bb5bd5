"""Live handlers of the image build steps: `image_base` (read the base for the platform) and
`image_push` (send what the target lacks, then the manifest). The plan's order is the wire's:
reads first, then per blob HEAD, mount or upload, then the manifest by tag."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from xcli.errors import CloudError, UserError
from xcli.gateways.registry.client import Credentials, NotFound, Registry, anonymous
from xcli.image import oci
from xcli.image.layers import Store
from xcli.image.reference import ImageRef
from xcli.image.steps import ImageBase, ImagePush
from xcli.plan.contract import Handler, StepContext
from xcli.state_files import open_new

PARALLEL = 8


class ImageHandlers:
    """The two handlers, over one credentials source (and, in tests, one HTTP session)."""

    def __init__(self, credentials: Credentials = anonymous, session: Any = None) -> None:
        self.credentials = credentials
        self.session = session

    def handlers(self) -> dict[str, Handler]:
        return {"image_base": _worded(self.read_base), "image_push": _worded(self.push)}

    def _registry(self) -> Registry:
        return Registry(self.credentials, self.session)

    def read_base(self, step: ImageBase, ctx: StepContext) -> Mapping[str, Any]:
        reg, image = self._registry(), step.image
        store = Store(Path(step.store)) if step.store else None
        try:
            raw, ctype, digest = _manifest(reg, store, image, image.reference)
        except NotFound as err:
            if not step.missing_hint:
                raise
            raise UserError(err.message, hint=step.missing_hint) from err
        doc = json.loads(raw)
        kind, was_index = oci.media_type(doc, ctype), False
        if kind in oci.INDEXES:
            child = oci.choose(doc, step.platform, str(image))
            raw, ctype, digest = _manifest(reg, store, image, str(child["digest"]))
            doc, was_index = json.loads(raw), True
            kind = oci.media_type(doc, ctype)
        if kind not in oci.MANIFESTS:
            raise CloudError(
                f"base image {image} is a {kind or 'document of no known type'}, not an image",
                hint="choose a container image for --base-docker-image",
            )
        config_digest = str(doc["config"]["digest"])
        cached = store.verified(config_digest) if store else None
        if cached is not None:
            config = cached.read_bytes()
        else:
            config = reg.blob(image, config_digest)
            if store is not None:
                store.keep(config_digest, config)
        if not was_index:
            oci.check_config_platform(json.loads(config), step.platform, str(image))
        ctx.report(f"base {image.repository}@{digest}")
        return {
            "digest": digest,
            "image": f"{image.repository}@{digest}",
            "manifest": raw.decode(),
            "media_type": kind,
            "config": config.decode(),
            "config_digest": config_digest,
        }

    def push(self, step: ImagePush, ctx: StepContext) -> Mapping[str, Any]:
        base = ctx.outputs[step.base_step]
        manifest = json.loads(base["manifest"])
        config, new_manifest = oci.compose(
            manifest, base["media_type"], base["config"].encode(), step.layers, step.source
        )
        store = Store(Path(step.store))
        store.keep(oci.digest_of(config), config)
        reg = self._registry()
        jobs = [(str(x["digest"]), True) for x in manifest.get("layers", [])]
        jobs += [(x.digest, False) for x in step.layers] + [(oci.digest_of(config), False)]
        outcome: dict[str, int] = {"skipped": 0, "mounted": 0, "uploaded": 0}
        expected = oci.digest_of(new_manifest)
        if reg.tagged(step.image, step.tag) == expected:
            # the same image is there already: a stored manifest's blobs are stored too
            ctx.report(f"{step.image}:{step.tag} is already this image: nothing to send")
            outcome["skipped"] = len(jobs)
            return _outputs(step, expected, reg, outcome)
        self._send(reg, step, store, jobs, outcome, ctx)
        digest = reg.put_manifest(step.image, step.tag, new_manifest, base["media_type"])
        ctx.report(
            f"{len(jobs)} blobs: {outcome['uploaded']} sent ({reg.sent / 1e6:.1f} MB), "
            f"{outcome['mounted']} mounted, {outcome['skipped']} already there"
        )
        return _outputs(step, digest, reg, outcome)

    def _send(
        self,
        reg: Registry,
        step: ImagePush,
        store: Store,
        jobs: list[tuple[str, bool]],
        outcome: dict[str, int],
        ctx: StepContext,
    ) -> None:
        """Every blob the target lacks, PARALLEL at a time, with progress on the terminal."""
        total = sum(x.size for x in step.layers)
        done: list[str] = []
        said = [0.0]

        def progress(n: int = 0) -> None:
            now = time.monotonic()
            if now - said[0] < 0.5 and len(done) < len(jobs):
                return  # a log (not a terminal) gets a line per report: at most two a second
            said[0] = now
            ctx.report(
                f"{reg.sent / 1e6:.1f} MB sent of {total / 1e6:.1f} MB of new layers, "
                f"{len(done)}/{len(jobs)} blobs done"
            )

        def one(job: tuple[str, bool]) -> str:
            result = self._blob(reg, step, store, job[0], from_base=job[1], progress=progress)
            done.append(result)
            progress()
            return result

        with ThreadPoolExecutor(max_workers=PARALLEL) as pool:
            for result in pool.map(one, jobs):
                outcome[result] += 1

    def _blob(
        self,
        reg: Registry,
        step: ImagePush,
        store: Store,
        digest: str,
        *,
        from_base: bool,
        progress: Any,
    ) -> str:
        dest = step.image
        if reg.has_blob(dest, digest):
            return "skipped"
        same = from_base and step.base.host == dest.host
        location = reg.start(dest, digest, mount_from=step.base.name if same else "")
        if location is None:
            return "mounted"
        path = store.blob(digest)
        if from_base and store.verified(digest) is None:  # another registry: through the store
            tmp = path.with_suffix(f".{os.getpid()}.{id(location)}.tmp")
            with open_new(tmp) as out:
                reg.blob(step.base, digest, out)
            os.replace(tmp, path)
        reg.upload(dest, digest, path, location, progress)
        return "uploaded"


def _worded(handler: Any) -> Handler:
    """The handler, with a registry that cannot be reached (after the upload's own retries) or
    that answers something other than JSON said in one line with a hint, not as the raw
    exception's text (issue 37)."""
    from xcli.gateways.ssh import reach

    def run(step: Any, ctx: StepContext) -> Mapping[str, Any]:
        image: ImageRef = getattr(step, "image", None) or step.base
        try:
            result: Mapping[str, Any] = handler(step, ctx)
            return result
        except ValueError as exc:  # JSON that is not (requests' JSONDecodeError is an OSError too)
            raise CloudError(
                f"registry {image.host} answered something that is not the registry API's "
                f"JSON ({type(exc).__name__})",
                hint="check that the host is an OCI registry and that no proxy rewrites its "
                "answers",
            ) from None

        except OSError as exc:  # requests' errors are OSErrors; so is a full disk
            if not reach.is_unreachable(exc):
                raise CloudError(
                    f"registry {image.host}: {exc.strerror or exc} while reading or writing "
                    f"{getattr(exc, 'filename', '') or 'a local file'}",
                    hint="check the disk of the image-layer cache (XCLI_IMAGE_CACHE) and try again",
                ) from None
            raise CloudError(
                f"cannot reach registry {image.host}: {reach.reason(exc)}",
                hint="check the registry's address, this machine's network and HTTPS_PROXY, "
                "then run the same command again (uploads go on where they stopped)",
                retryable=True,
            ) from None

    return run


def _outputs(
    step: ImagePush, digest: str, reg: Registry, outcome: dict[str, int]
) -> dict[str, Any]:
    return {
        "digest": digest,
        "image": f"{step.image.repository}@{digest}",
        "tag": step.tag,
        "uploaded_bytes": reg.sent,
        "resumed_uploads": len(reg.resumed),
        **{f"blobs_{k}": v for k, v in outcome.items()},
    }


def _manifest(
    reg: Registry, store: Store | None, image: ImageRef, reference: str
) -> tuple[bytes, str, str]:
    """A manifest or index: from the store when its digest is known and kept there (a tag is
    resolved with a HEAD, which Docker Hub does not count as a pull), else read and kept.
    Only documents that name their own mediaType are kept (the type must not be lost)."""
    if store is not None:
        digest = reference if reference.startswith("sha256:") else ""
        if not digest:
            digest = reg.tagged(image, reference, push=False)
            if not digest:  # no such tag: the GET below says so in its own words
                return reg.manifest(image, reference, oci.ACCEPT)
        kept = store.verified(digest)
        if kept is not None:
            return kept.read_bytes(), "", digest
    raw, ctype, digest = reg.manifest(image, reference, oci.ACCEPT)
    if store is not None and json.loads(raw).get("mediaType"):
        store.keep(digest, raw)
    return raw, ctype, digest
