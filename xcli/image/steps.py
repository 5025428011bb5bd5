"""Step kinds of an image build. Their live handlers are gateways
(`gateways/registry/client.py`, `gateways/google/artifact_registry.py`); the dry-run prints
every request they would send, reads first.

JSON form (every step also has id, kind, summary, after):
- ar_repository: "api", "repository", "requests" (the get, then the create when it is missing)
- image_base: "image", "platform", "requests" (the manifest reads and the config blob read),
  outputs `digest` (the platform's manifest), `manifest`, `media_type`, `config`
- ar_reader: "api", "repository", "role", "member" (the nodes' service account, by project
  number), "requests" (the project read, getIamPolicy, then setIamPolicy when the member lacks
  the role)
- image_push: "image" (where it goes), "tag", "from" (the base), "layers" [{name, diff_id,
  digest, size, files}], "requests" (per blob HEAD, then mount or upload; config; manifest),
  outputs `digest` (the new manifest's, which the workload runs) and `image` (repo@digest)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from xcli.image import oci, secrets
from xcli.image.layers import Layer
from xcli.image.reference import ImageRef
from xcli.plan.model import Ref, Step, symbolic

AR_API = "https://artifactregistry.googleapis.com/v1"


@dataclass(frozen=True, kw_only=True)
class ArRepository(Step):
    """Make sure an Artifact Registry Docker repository exists: get it, create it if missing
    (artifactregistry.projects.locations.repositories.get / .create, then the operation)."""

    kind: ClassVar[str] = "ar_repository"

    project: str
    location: str
    repository: str

    @property
    def parent(self) -> str:
        return f"projects/{self.project}/locations/{self.location}"

    def body(self) -> dict[str, Any]:
        return {"format": "DOCKER", "description": "Images built by xcli workload create"}

    def details(self) -> dict[str, Any]:
        name = f"{self.parent}/repositories/{self.repository}"
        return {
            "api": "artifactregistry.projects.locations.repositories.create",
            "repository": name,
            "requests": [
                {
                    "api": "artifactregistry.projects.locations.repositories.get",
                    "method": "GET",
                    "url": f"{AR_API}/{name}",
                },
                {
                    "api": "artifactregistry.projects.locations.repositories.create",
                    "method": "POST",
                    "when": "the get answered 404",
                    "url": f"{AR_API}/{self.parent}/repositories?repositoryId={self.repository}",
                    "body": self.body(),
                },
            ],
        }


CRM_API = "https://cloudresourcemanager.googleapis.com/v3"
READER = "roles/artifactregistry.reader"
# roles that hold artifactregistry.repositories.downloadArtifacts (Artifact Registry's roles:
# writer, repoAdmin and admin each include the reader's permissions)
PULLS = frozenset(
    {READER, "roles/artifactregistry.writer", "roles/artifactregistry.repoAdmin"}
    | {"roles/artifactregistry.admin"}
)


def has_pull(policy: Mapping[str, Any], member: str) -> bool:
    """Whether an unconditional binding of a role that pulls names `member`."""
    return any(
        b.get("role") in PULLS and member in b.get("members", []) and not b.get("condition")
        for b in policy.get("bindings", [])
    )


def compute_account(number: str) -> str:
    """The default Compute Engine service account of a project, as an IAM member."""
    return f"serviceAccount:{number}-compute@developer.gserviceaccount.com"


@dataclass(frozen=True, kw_only=True)
class ArReaderGrant(Step):
    """Let the nodes pull from the repository: give the default Compute Engine service account
    of the nodes' project (`NUMBER-compute@developer.gserviceaccount.com`, which GKE node pools
    and TPU VMs run as unless told otherwise) roles/artifactregistry.reader on it, by
    read-modify-write of the repository's IAM policy (nothing is written when it has the role).

    Why: Artifact Registry "Deploying to Compute Engine": in organisations created after
    2024-05-03 the default service account no longer gets Editor
    (iam.automaticIamGrantsForDefaultServiceAccounts), and "to pull container images from
    Artifact Registry repositories, you must grant the Compute Engine service account the
    Artifact Registry Reader role (roles/artifactregistry.reader)". Cluster Toolkit's blueprints
    grant their node service account the same role (examples/gke-a4x/gke-a4x.yaml l.108-118)."""

    kind: ClassVar[str] = "ar_reader"

    project: str  # the repository's project
    location: str
    repository: str
    node_project: str  # the project whose nodes pull

    @property
    def resource(self) -> str:
        return f"projects/{self.project}/locations/{self.location}/repositories/{self.repository}"

    def member(self, number: str) -> str:
        return compute_account(number)

    def details(self) -> dict[str, Any]:
        url = f"{AR_API}/{self.resource}"
        return {
            "api": "artifactregistry.projects.locations.repositories.setIamPolicy",
            "repository": self.resource,
            "role": READER,
            "member": self.member(f"${{{self.id}.project_number}}"),
            "requests": [
                {
                    "api": "cloudresourcemanager.projects.get",
                    "method": "GET",
                    "url": f"{CRM_API}/projects/{self.node_project}",
                    "outputs": {"project_number": "name@last"},
                },
                {
                    "api": "artifactregistry.projects.locations.repositories.getIamPolicy",
                    "method": "GET",
                    "url": f"{url}:getIamPolicy?options.requestedPolicyVersion=3",
                },
                {
                    "api": "artifactregistry.projects.locations.repositories.setIamPolicy",
                    "method": "POST",
                    "when": "the member lacks the role",
                    "url": f"{url}:setIamPolicy",
                    "body": "the policy read, with the member added to the role (its etag kept)",
                },
            ],
        }


def _v2(image: ImageRef) -> str:
    return f"{image.scheme}://{image.api_host}/v2/{image.name}"


@dataclass(frozen=True, kw_only=True)
class ImageBase(Step):
    """Read the base image: its manifest or index, the platform's manifest, its config."""

    kind: ClassVar[str] = "image_base"

    image: ImageRef
    platform: str
    store: str = field(default="", metadata={"print": False})  # manifests kept by digest
    # said when the registry has no such image (a short name that only a local engine held)
    missing_hint: str = ""

    def details(self) -> dict[str, Any]:
        v2 = _v2(self.image)
        missing = {"when_missing": self.missing_hint} if self.missing_hint else {}
        return {
            "image": str(self.image),
            "platform": self.platform,
            **missing,
            "cache": "a document already read (by digest) is not read again; a tag is "
            "resolved with HEAD first, which Docker Hub does not count as a pull",
            "requests": [
                {
                    "method": "GET",
                    "url": f"{v2}/manifests/{self.image.reference}",
                    "accept": oci.ACCEPT,
                },
                {
                    "method": "GET",
                    "url": f"{v2}/manifests/{self.ref('digest')}",
                    "when": "the answer was an index: its child for the platform, by digest",
                },
                {"method": "GET", "url": f"{v2}/blobs/{self.ref('config_digest')}"},
            ],
        }

    def ref(self, output: str) -> Ref:
        return Ref(self.id, output)


@dataclass(frozen=True, kw_only=True)
class ImagePush(Step):
    """Push the base's layers (when missing), the new layers, the config and the manifest."""

    kind: ClassVar[str] = "image_push"

    image: ImageRef  # host/name, no tag
    tag: str
    base: ImageRef
    base_step: str
    layers: tuple[Layer, ...]
    source: str  # what the layers hold, for the config's history ("script folder train/")
    store: str = field(default="", metadata={"print": False})
    # secret and VCS paths of the folder left out by default: (path, why)
    withheld: tuple[tuple[str, str], ...] = ()

    def base_output(self, output: str) -> Ref:
        return Ref(self.base_step, output)

    def details(self) -> dict[str, Any]:
        v2 = _v2(self.image)
        same = self.base.host == self.image.host
        mount = f"?mount=<digest>&from={self.base.name}" if same else ""
        blob_steps = [
            {"method": "HEAD", "url": f"{v2}/blobs/<digest>", "then": "skip the blob on 200"},
            {
                "method": "POST",
                "url": f"{v2}/blobs/uploads/{mount}",
                "then": "201: mounted" if same else "202: an upload session",
            },
            {
                "method": "PATCH",
                "url": "<Location>",
                "body": "the blob in 16 MiB chunks (blobs over one chunk)",
                "then": "after a dropped connection: GET <Location> for the range kept, go on",
            },
            {
                "method": "PUT",
                "url": "<Location>&digest=<digest>",
                "body": "a blob of one chunk or less, whole (after a drop: a new session)",
            },
        ]
        return {
            "image": f"{self.image}:{self.tag}",
            "from": symbolic(self.base_output("image")),
            **secrets.plan_note(self.withheld),
            "layers": [
                {
                    "name": x.name,
                    "diff_id": x.diff_id,
                    "digest": x.digest,
                    "size": x.size,
                    "files": x.files,
                }
                for x in self.layers
            ],
            "requests": [
                {
                    "method": "HEAD",
                    "url": f"{v2}/manifests/{self.tag}",
                    "then": "the same manifest digest is there already: stop, nothing to send",
                },
                {
                    "for": "each base layer (GET from the base when it is elsewhere), each new "
                    "layer, then the config",
                    "steps": blob_steps,
                },
                {
                    "method": "PUT",
                    "url": f"{v2}/manifests/{self.tag}",
                    "content_type": symbolic(self.base_output("media_type")),
                    "body": "the base manifest with the new config and layers",
                },
                {
                    "method": "GET",
                    "url": f"{v2}/manifests/<digest>",
                    "then": "the bytes sent, or stop before the workload is created",
                },
            ],
            "outputs": {"digest": symbolic(Ref(self.id, "digest"))},
        }
