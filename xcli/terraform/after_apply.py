"""What runs once `terraform apply` has made the infrastructure: the API path's finishing steps.

Pure. `post_apply_steps(spec, after)` is the PostApply builder plan_create splices after the
step that read the terraform outputs ("tf-output"):

- gke: the in-cluster setup of the API path (xcli.plan.incluster.setup_steps: JobSet, Kueue,
  the queues, priority classes and the metadata ConfigMap), against the regional cluster the
  gke-cluster module makes (location = the zone's region, as the API path).
- queued-resource: Terraform writes one queued resource per slice and does not wait for them
  to be ACTIVE; as on the API path, xcli waits for each, then adds the SSH key to its node's
  metadata and pins the workers' host keys, recorded under the queued resource's name.
"""

from __future__ import annotations

from dataclasses import replace

from xcli.plan import queued_resource as qr_plan
from xcli.plan.gke_plan import cluster_resource
from xcli.plan.incluster import setup_steps
from xcli.plan.model import Ref, Step
from xcli.plan.qr_options import DEFAULT_KEY
from xcli.plan.steps import LocalAction, Wait
from xcli.plan.tpu_login import login_steps
from xcli.plan.tpu_steps import TpuSshAccess
from xcli.spec import ClusterSpec


def post_apply_steps(spec: ClusterSpec, after: str) -> list[Step]:
    if spec.provider == "gke":
        cluster = cluster_resource(spec.project, spec.region, spec.name)
        return setup_steps(spec, cluster, (after,))
    if spec.provider == "queued-resource":
        return _tpu_access_steps(spec, after)
    return []


def _tpu_access_steps(spec: ClusterSpec, after: str) -> list[Step]:
    opts = qr_plan.check_spec(spec)
    names = qr_plan.node_names(spec.name, spec.num_slices)  # = the module's queued resources
    key = LocalAction(
        id="ssh-key",
        summary=f"make sure the SSH key {opts.ssh_key} exists (created if missing)",
        after=(after,),
        action="ensure_ssh_key",
        args={"path": opts.ssh_key, "create": opts.ssh_key == DEFAULT_KEY},
    )
    # The same decision as the API path (ssh-keys metadata after a project OS Login check, or
    # an OS Login import), taken once Terraform has applied.
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
    # One access step per queued resource, recorded under its own name as the API path and
    # `xcli cluster wait` record it: `xcli ssh --cluster <that name>` then finds it.
    access = [
        TpuSshAccess(
            id=f"ssh-access-{name}",
            summary=f"{'use OS Login for' if opts.os_login else 'add the SSH key to'} the nodes "
            f"of {name} and pin their host keys",
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
