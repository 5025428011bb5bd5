"""Terraform mode for queued-resource: one queued resource per slice (tpu-queued-resource
module, google-beta provider); after apply, the API path's wait for ACTIVE, SSH key and host
keys. Pure, except `live_handlers`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from xcli.errors import UserError
from xcli.plan.model import Ref, Step
from xcli.plan.steps import LocalAction, Wait
from xcli.plan.tpu_steps import TpuSshAccess
from xcli.providers.queued_resource import planner as qr_plan
from xcli.providers.queued_resource.login_plan import login_steps
from xcli.providers.queued_resource.options import DEFAULT_KEY, of
from xcli.spec import ClusterSpec, check_name

if TYPE_CHECKING:
    from xcli.plan.contract import Handler

_MAX_QR_NAME = 63


def tf_queued_resource_settings(spec: ClusterSpec) -> dict[str, Any]:
    """The queued-resource view, comparable with the API path's QueuedResource body."""
    accel = spec.accelerator
    return {
        "accelerator_type": accel.tpu_accelerator_type,
        "runtime_version": str(of(spec).runtime_version or accel.runtime_version),
        "slices": spec.num_slices,
        "capacity": spec.capacity.kind,
    }


class QueuedResourceTerraform:
    flags = frozenset({"runtime_version", "network", "subnetwork", "internal_ips", "os_login"})

    def check(self, spec: ClusterSpec) -> None:
        capacity = spec.capacity.kind
        # room for the "-<slice>" suffix of multislice names (up to -1023)
        check_name(spec.name, "cluster", _MAX_QR_NAME - 5)
        if spec.accelerator.kind != "tpu" or spec.accelerator.tpu_accelerator_type is None:
            raise UserError(
                f"{spec.accelerator.name} is not offered through Cloud TPU queued resources",
                hint="use --provider gke for it",
            )
        if capacity != "on-demand":
            raise UserError(
                f"--{capacity} cannot be expressed for queued resources in --terraform mode",
                hint="the google-beta provider's queued resource has no spot, flex-start, "
                "guaranteed or reservation; use --on-demand, or drop --terraform to use the API",
            )

    def modules(self, spec: ClusterSpec) -> tuple[str, ...]:
        return ("tpu-queued-resource",)

    def inputs(self, spec: ClusterSpec) -> dict[str, Any]:
        qr = tf_queued_resource_settings(spec)
        opts = of(spec)
        return {
            "queued_resource": {
                "name": spec.name,
                "num_slices": spec.num_slices,
                "accelerator_type": qr["accelerator_type"],
                "runtime_version": qr["runtime_version"],
                "network": opts.network,
                "subnetwork": opts.subnetwork,
                "enable_external_ips": not opts.internal_ips,
                "description": f"xcli cluster {spec.name}",
            }
        }

    def module_of(self, variable: str) -> str:
        return {"queued_resource": "tpu-queued-resource"}[variable]

    def root_context(self, spec: ClusterSpec) -> dict[str, Any]:
        return {"mode": "queued-resource", "pool": None}

    def instructions(self, spec: ClusterSpec) -> list[str]:
        return []

    def notes(self, spec: ClusterSpec, binary: str | None) -> tuple[list[str], list[str]]:
        before, after = [], []
        if spec.num_slices > 1:
            before.append(
                f"{spec.num_slices} queued resources, one per slice: the google-beta provider "
                "has no multislice parameters, so the slices are not scheduled all-or-nothing"
            )
        if binary is None:
            after.append("after terraform apply, add the SSH key and pin the host keys with:")
            where = f"--project {spec.project} --zone {spec.zone}"
            after += [
                f"  xcli cluster wait --provider queued-resource --cluster {name} {where}"
                for name in qr_plan.node_names(spec.name, spec.num_slices)
            ]
        return before, after

    def post_apply(self, spec: ClusterSpec, after: str) -> Sequence[Step]:
        """Terraform writes one queued resource per slice and does not wait for them to be
        ACTIVE; as on the API path, xcli waits for each, then adds the SSH key to its node's
        metadata and pins the workers' host keys, recorded under the queued resource's name."""
        opts = qr_plan.check_spec(spec)
        names = qr_plan.node_names(spec.name, spec.num_slices)  # = the module's queued resources
        key = LocalAction(
            id="ssh-key",
            summary=f"make sure the SSH key {opts.ssh_key} exists (created if missing)",
            after=(after,),
            action="ensure_ssh_key",
            args={"path": opts.ssh_key, "create": opts.ssh_key == DEFAULT_KEY},
        )
        # The same decision as the API path (ssh-keys metadata after a project OS Login check,
        # or an OS Login import), taken once Terraform has applied.
        login, user = login_steps(spec.project, opts)
        login = [replace(s, after=(after, *s.after)) for s in login]
        waits = [
            Wait(
                id=f"wait-active-{name}",
                summary=f"wait for queued resource {name} to be ACTIVE "
                "(WAITING_FOR_RESOURCES -> PROVISIONING -> ACTIVE)",
                after=(after,),
                api=qr_plan.QR_GET,
                url=qr_plan.qr_url(spec.project, spec.zone, name),
                until="state.state == ACTIVE",
                timeout_seconds=qr_plan.wait_timeout(opts),
            )
            for name in names
        ]
        # One access step per queued resource, recorded under its own name as the API path
        # and `xcli cluster wait` record it: `xcli ssh --cluster <that name>` then finds it.
        access = [
            TpuSshAccess(
                id=f"ssh-access-{name}",
                summary=f"{'use OS Login for' if opts.os_login else 'add the SSH key to'} the "
                f"nodes of {name} and pin their host keys",
                after=(key.id, wait.id, *(s.id for s in login)),
                api_base=f"{qr_plan.ROOT}/v2/{qr_plan.parent(spec.project, spec.zone)}",
                queued_resource=name,
                nodes=(name,),
                user=user,
                public_key=Ref(key.id, "public_key"),
                key_file=opts.ssh_key,
                os_login=opts.os_login,
            )
            for name, wait in zip(names, waits, strict=True)
        ]
        return [key, *login, *waits, *access]

    def live_handlers(self, spec: ClusterSpec, connections: Any) -> Mapping[str, Handler]:
        """The queued-resource handlers (wait for ACTIVE, SSH key, host keys)."""
        from xcli.providers.queued_resource.handlers import QrHandlers

        conn = connections
        qr = QrHandlers(conn.tpu(spec.zone), sleep=conn.tpu_sleep, clock=conn.clock)
        return qr.mapping()


TERRAFORM = QueuedResourceTerraform()
