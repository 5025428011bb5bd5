"""The one shape every storage type has: what `xcli storage` needs to know about it, and what a
workload needs to mount it. Each type is one module beside this one (gcsfuse, filestore, lustre,
parallelstore, disk), registered in `xcli/plan/storage_types/__init__.py:UNITS`; nothing outside
its module compares a type's name.

The defaults here are those of a network file system reached through an instance (Filestore,
Lustre, Parallelstore): a module overrides what its type does differently. Pure: no network.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from xcli.errors import InternalError, UserError
from xcli.plan.model import Ref, Step
from xcli.plan.steps import Text
from xcli.plan.storage_steps import ApiRead

if TYPE_CHECKING:
    from xcli.plan.storage import Storage
    from xcli.plan.storage_request import AttachRequest, CreateRequest


@dataclass(frozen=True)
class Volume:
    """The CSI source of one storage: volume handle, attributes, capacity to declare."""

    kind: str
    handle: Text
    attributes: dict[str, Text]
    capacity: Text  # a Kubernetes quantity (a ref: read from the resource); gcsfuse ignores it


@dataclass(frozen=True)
class NetworkNeeds:
    """What the type needs from the VPC (xcli/storage/network.py checks and makes it): Private
    Service Access, and an ingress rule from its ranges."""

    product: str  # the product's name, in summaries and errors
    ports: tuple[str, ...]  # TCP ports to open from the PSA ranges; () means every TCP port
    prefix: int  # the prefix length of the range the suggested fix allocates
    network_output: str  # the read-source output that names the instance's network


class StorageType:
    """A storage type. Subclasses set the class attributes and override what differs."""

    name: str
    driver: str  # the CSI driver
    addon: str  # its field of container.v1 AddonsConfig
    addon_attr: str  # the same field in google-cloud-container's message (snake case)
    source_flag = "--instance"  # the flag naming the backing resource
    read_only_only = False  # one resource on many nodes: ReadOnlyMany only
    fs_type: str | None = None  # the PV's csi.fsType, when the driver formats a block device
    vm_mountable = False  # Cloud TPU VM workers can mount it (no Kubernetes)
    # what a pod mounting it carries (the driver's webhook reads them), and what a plan says
    # about mounting it in xcli's host-network pods
    pod_annotations: Mapping[str, str] = {}
    host_network_note: str | None = None
    bucket_grant = False  # the workloads' Kubernetes service account is granted the bucket
    network: NetworkNeeds | None = None
    recreates_nodes = False  # turning its driver on recreates running nodes (storage/nodes.py)
    plan_note: str | None = None  # said in every attach plan of this type
    creatable = False  # `xcli storage create` makes it
    not_creatable_hint = ""
    # the Source field the storage's own name stands for when none is given ("bucket",
    # "instance"), as XPK infers it; "" when the source must be named
    name_is_source = ""

    def default_options(self, readonly: bool) -> tuple[str, ...]:
        """Mount options when none are given."""
        return ()

    def check_mount_option(self, option: str) -> None:
        """Refuse an option the driver refuses (given one option, already split)."""

    def check_source(
        self, name: str, bucket: str, instance: str, disk: str, *, new_bucket: bool, created: bool
    ) -> str:
        """Refuse a missing or bad source (cloud clusters); the instance name to use (default:
        the storage's, for an instance `storage create` makes)."""
        from xcli.spec import check_name

        if not instance and not created:
            raise UserError(f"{self.name} storage needs --instance", hint="the instance's name")
        instance = instance or name
        check_name(instance, "instance", 63)
        return instance

    def source_of(self, req: AttachRequest) -> str:
        """The record's `source`: the backing resource in the type's own terms."""
        return f"projects/{req.cluster.project}/locations/{req.where}/instances/{req.instance}"

    def volume(self, req: AttachRequest, after: tuple[str, ...]) -> tuple[list[Step], Volume]:
        """The read steps the volume needs, and the CSI source built from their answers."""
        raise InternalError(f"storage type {self.name} has no volume")

    def read_source(
        self,
        req: AttachRequest,
        url: str,
        api: str,
        outputs: Mapping[str, str],
        after: Sequence[str],
    ) -> tuple[ApiRead, dict[str, Ref]]:
        """The `read-source` step and a reference to each of its outputs."""
        read = ApiRead(
            id="read-source",
            summary=f"read {self.source_of(req)} (what the volume needs)",
            after=tuple(after),
            api=api,
            method="GET",
            url=url,
            outputs=dict(outputs),
        )
        return read, {k: Ref("read-source", k) for k in outputs}

    # --- storage create / delete (creatable types) ---------------------------------------

    def create_size(self, size: str, tier: str, throughput: int) -> int:
        """The checked capacity in GiB `storage create` asks for (0: the type has none)."""
        return 0

    def create_location(self, req: AttachRequest, tier: str) -> str:
        """Where `storage create` makes it (default: the --location given, else the zone)."""
        return req.location

    def create_step(self, req: CreateRequest, labels: Mapping[str, str]) -> Step:
        raise InternalError(f"storage type {self.name} cannot be created")

    def create_notes(self, req: CreateRequest) -> list[str]:
        return []

    def delete_step(self, record: Storage, after: tuple[str, ...]) -> Step:
        raise InternalError(f"storage type {self.name} cannot be deleted")


# --- helpers the instance types share ---------------------------------------------------------

_UNITS = {"gb": 1, "gib": 1, "g": 1, "tb": 1024, "tib": 1024, "t": 1024}


def size_gib(value: str) -> int:
    """'1TB', '2.5TiB', '1024GB', '1024' (GiB) -> GiB. Filestore and Lustre count in GiB and
    call 1024 of them a TB, so TB and TiB mean the same here."""
    import re

    found = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([A-Za-z]*)\s*", value)
    unit = found.group(2).lower() if found else ""
    if not found or (unit and unit not in _UNITS):
        raise UserError(f"size {value!r} is not a size", hint="e.g. 1TB, 2.5TiB or 1024GB")
    gib = float(found.group(1)) * _UNITS.get(unit, 1)
    if gib != int(gib) or gib <= 0:
        raise UserError(f"size {value!r} is not a whole, positive number of GiB", hint="e.g. 1TB")
    return int(gib)


def needs_size(kind: str, size: str) -> int:
    if not size:
        raise UserError(f"creating {kind} storage needs --size", hint="e.g. --size 1TB")
    return size_gib(size)


def create_instance(
    req: CreateRequest, api_base: str, api: str, body: dict[str, object], what: str
) -> Step:
    """`instances.create` of a long-running-operation API (file.v1, lustre.v1), waited for."""
    from xcli.plan.operations import OperationCall

    a = req.attach
    base = f"projects/{a.cluster.project}/locations/{a.where}"
    url = f"{api_base}/{base}/instances?instanceId={a.instance}"
    return OperationCall(
        id="create",
        summary=f"create {what}",
        api=api,
        method="POST",
        url=url,
        body=body,
        poll=f"GET {url.split('/projects/')[0]}/{base}/operations/{{name}}",
        timeout_seconds=3600,
    )


def delete_instance(record: Storage, after: tuple[str, ...], api_base: str, service: str) -> Step:
    """`instances.delete` of what `storage create` made, with every file on it."""
    from xcli.plan.operations import OperationCall

    location = record.source.rsplit("/instances/", 1)[0]
    return OperationCall(
        id="delete",
        summary=f"delete {record.type} instance {record.source} and every file on it",
        after=after,
        api=f"{service}.projects.locations.instances.delete",
        method="DELETE",
        url=f"{api_base}/{record.source}",
        accept=("NOT_FOUND",),
        poll=f"GET {api_base}/{location}/operations/{{name}}",
        timeout_seconds=3600,
        destructive=True,
    )
