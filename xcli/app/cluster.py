"""`xcli cluster create|delete|wait|list|describe`: the same verbs for every provider.

Each use case finds the provider in the registry, builds its plan (a live run first observes
what exists, so that a re-run only does what is missing), keeps this machine's cluster index,
and runs the plan through the dependencies' executor. The CLI renders what comes back.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from xcli import cluster_index
from xcli.app.where import location, ref_for
from xcli.errors import UserError

if TYPE_CHECKING:
    from xcli.app.deps import Deps, Location
    from xcli.catalog.model import Accelerator
    from xcli.plan.cluster import ClusterSummary
    from xcli.plan.model import Plan
    from xcli.providers.base import Provider
    from xcli.spec import ClusterSpec


@dataclass(frozen=True)
class CreateRequest:
    name: str  # already checked
    provider: str
    tpu_type: str | None
    device_type: str | None
    num_slices: int | None
    num_nodes: int | None
    on_demand: bool
    spot: bool
    reservation: str | None
    flex_start: bool
    max_run_duration: str | None
    guaranteed: bool
    min_duration: str | None
    where: Location
    dry_run: bool  # Terraform mode only: write the folder into --out, run no terraform
    yes: bool
    # which provider and why (cluster_index.Choice.note), for the plan's header
    provider_note: str = ""
    force: bool = False  # --force: replace what differs (reconciling providers, Terraform mode)
    terraform: str | None = None  # --terraform DIR
    apply: bool = False  # --apply (with --terraform)
    state_bucket: str | None = None  # --state-bucket (with --terraform)
    # the provider's own flags, as given: only its options builder (Registry.options) reads them
    flags: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class CreateResult:
    # Lines for the user after a live run (Terraform mode: how to apply the folder written).
    notes: tuple[str, ...] = field(default=())


@dataclass(frozen=True)
class DeleteRequest:
    name: str
    provider: str | None  # None: the one that created it on this machine, else gke
    terraform_dir: str | None
    where: Location
    dry_run: bool


@dataclass(frozen=True)
class WaitRequest:
    name: str
    provider: str | None
    timeout: str | None
    ssh_key: str | None
    ssh_user: str | None
    os_login: bool
    where: Location


@dataclass(frozen=True)
class ListRequest:
    provider: str
    where: Location


@dataclass(frozen=True)
class DescribeRequest:
    name: str
    provider: str | None
    where: Location


def which_provider(name: str, explicit: str | None) -> cluster_index.Choice:
    """The provider `cluster create --cluster name` means: --provider, else the one this machine
    recorded for the name, else gke; a recorded name with another --provider is refused."""
    return cluster_index.choose_for_create(name, explicit)


def with_note(plan: Plan, note: str) -> Plan:
    """The plan with one more header line (which provider, and why)."""
    from dataclasses import replace

    return replace(plan, notes=(note, *plan.notes)) if note else plan


def create(req: CreateRequest, deps: Deps) -> CreateResult:
    """Create a cluster, or complete one that is partly there (or write its Terraform folder)."""
    spec = _spec(req, deps)
    from xcli.app import terraform_mode  # after the checks: it loads Terraform's templates

    if terraform_mode.requested(spec, deps):  # provider-independent: writes a Terraform folder
        return CreateResult(terraform_mode.create(spec, req.dry_run, req.yes, deps))
    provider = req.provider
    backend = deps.registry.get(provider)
    ref = ref_for(deps.registry, req.name, provider, req.where)
    if spec.force:  # it will ask before replacing pools: refuse now if nobody can
        deps.require_answerable("--force (it may replace node pools)")
    observer = deps.registry.observer(provider, backend)
    if observer is not None:  # planning is pure: every check that needs nothing remote (flag
        observer.plan_create(spec, observed=None)  # combinations) runs before the first read
    # A dry-run observes nothing (deps.record is DRY): it plans against nothing, and says so.
    observed = deps.record.observe(observer, ref, "create")
    plan = (
        observer.plan_create(spec, observed=observed)
        if observer is not None
        else backend.plan_create(spec)
    )
    plan = with_note(plan, req.provider_note)
    if deps.registry.capabilities(provider).cloud:
        from xcli.catalog.zones import zone_note

        plan = with_note(plan, zone_note(spec.accelerator, spec.zone) or "")
    deps.record.check_create(deps.registry.live_checker(provider, backend), spec)
    confirm_removals(plan, deps.confirm)
    if deps.registry.capabilities(provider).vm_workloads:
        deps.record.forget_earlier_cluster(req.name, provider, deps.say)

    def handlers() -> Any:
        # recorded once the handlers hold their credentials, before the first step runs: a
        # partial cluster is found too, and a create refused for credentials leaves no record
        made = backend.handlers(ref)
        deps.record.created(req.name, provider)
        return made

    deps.run_plan(plan, handlers)
    return CreateResult()


def _spec(req: CreateRequest, deps: Deps) -> ClusterSpec:
    """The frozen ClusterSpec, after every check that needs nothing remote. Checks that do not
    depend on each other are all run and reported together (issue 36: one answer per mistake)."""
    from xcli.catalog import lookup
    from xcli.errors import collect
    from xcli.spec import Capacity, ClusterSpec, capacity_from_flags, terraform_from_flags

    caps = deps.registry.capabilities(req.provider)

    def force() -> None:
        # --force replaces what differs: what a reconciling provider does, or Terraform does
        if req.force and not req.terraform and not caps.observer:
            raise UserError(
                f"--force applies to --provider {req.provider} only with --terraform DIR",
                hint="drop --force",
            )

    def one_shape() -> None:
        if bool(req.tpu_type) == bool(req.device_type):
            raise UserError(
                "pass exactly one of --tpu-type and --device-type",
                hint="e.g. --tpu-type v6e-256 or --device-type h100-80gb-8",
            )

    collect(force, one_shape)
    accel = lookup(req.tpu_type or req.device_type or "")

    def offered() -> None:
        if caps.cloud:  # before any call, in --dry-run too; the local provider has no zone
            from xcli.catalog.zones import check_zone

            check_zone(accel, req.where.zone)

    no_choice = not (req.spot or req.reservation or req.flex_start)
    found: list[Any] = []
    collect(
        lambda: check_counts(accel, req.tpu_type, req.num_slices, req.num_nodes),
        offered,
        # built once, here: the provider's own builder types its flags (a --ssh-key is checked)
        lambda: found.append(deps.registry.options(req.provider, req.flags)),
        lambda: found.append(
            capacity_from_flags(
                on_demand=req.on_demand or (not caps.cloud and no_choice),
                spot=req.spot,
                reservation=req.reservation,
                flex_start=req.flex_start,
                max_run_duration=req.max_run_duration,
                guaranteed=req.guaranteed,
                min_duration=req.min_duration,
                project=req.where.project_flag,
            )
        ),
    )
    options, capacity = found
    assert isinstance(capacity, Capacity)
    terraform = terraform_from_flags(req.terraform, req.apply, req.state_bucket)
    project, zone = location(deps.registry, req.provider, req.where)
    return ClusterSpec(
        name=req.name,
        project=project,
        zone=zone,
        provider=req.provider,
        accelerator=accel,
        capacity=capacity,
        num_slices=req.num_slices if req.num_slices is not None else 1,
        num_nodes=req.num_nodes or 1,
        options=options,
        force=req.force,
        terraform=terraform,
        given=tuple(req.flags.items()),
    )


def check_counts(
    accel: Accelerator, tpu_type: str | None, num_slices: int | None, num_nodes: int | None
) -> None:
    """Refuse flags that do not apply to the accelerator, rather than ignore them."""
    if tpu_type and accel.kind != "tpu":
        raise UserError(
            f"{tpu_type} is a {accel.kind.upper()} shape, and --tpu-type takes TPU shapes",
            hint=f"pass it with --device-type {tpu_type}",
        )
    if accel.kind == "tpu" and num_nodes is not None:
        raise UserError(
            f"--num-nodes counts GPU VMs; {accel.name} is a TPU slice",
            hint="drop --num-nodes: a slice's VMs follow from its shape; use --num-slices "
            "for more slices",
        )
    if accel.kind == "cpu" and num_nodes is not None:
        raise UserError(
            f"--num-nodes counts GPU VMs; {accel.name} is a CPU shape of {accel.vms_per_slice} VMs",
            hint="drop --num-nodes: the VM count is the shape's last number "
            f"({accel.family}-<VMs>)",
        )
    if accel.kind == "gpu" and num_slices is not None:
        raise UserError(
            f"--num-slices counts TPU slices; {accel.name} is a GPU",
            hint="use --num-nodes for more GPU VMs",
        )
    if num_nodes is not None:  # before anything remote: one NVLink domain per GB200 pool
        from xcli.catalog.topology import check_domain

        check_domain(accel, num_nodes)


def confirm_removals(plan: Plan, confirm: Any) -> None:
    """Ask once before a plan that removes something (a node pool that differs)."""
    from xcli.plan.operations import destructive_steps

    doomed = destructive_steps(plan)
    if doomed:
        confirm("This will " + "; ".join(doomed) + ". Continue?")


def delete(req: DeleteRequest, deps: Deps) -> None:
    """Delete a cluster and everything xcli created for it; VM workloads still running on it
    are stopped first."""
    if req.terraform_dir is not None:
        from xcli.app import terraform_mode

        terraform_mode.delete(req.name, req.terraform_dir, req.dry_run, deps)
        return
    name = req.name
    choice = cluster_index.choose(name, req.provider)
    provider = choice.provider
    backend = deps.registry.get(provider)
    ref = ref_for(deps.registry, name, provider, req.where)
    # Ask first: nothing is read (no credentials, no API call) for an answer that may be no.
    deps.confirm(f"Delete cluster {name} ({provider}) and everything xcli created for it?")
    observer = deps.registry.observer(provider, backend)
    observed = deps.record.observe(observer, ref, "delete")
    plan = (
        observer.plan_delete(ref, observed=observed)
        if observer is not None
        else backend.plan_delete(ref)
    )
    plan = with_note(plan, choice.note(name))
    vm_workloads = deps.registry.capabilities(provider).vm_workloads
    if vm_workloads:
        deps.record.stop_vm_workloads(name, provider, deps.say, deps.stop_workload)
    deps.run_plan(plan, lambda: backend.handlers(ref))
    deps.record.deleted(name, provider)
    if vm_workloads:  # records kept on this machine (storages too: no Kubernetes to hold them)
        deps.record.end_vm_records(name, provider)
        deps.record.end_storage_records(name, deps.say)


def wait(req: WaitRequest, deps: Deps) -> None:
    """Wait until a cluster is ready, then set up SSH access (providers that have a wait)."""
    from xcli.spec import parse_duration

    provider = cluster_index.provider_for(req.name, req.provider, deps.registry.default(wait=True))
    found = deps.registry.get(provider)
    backend = deps.registry.waiter(provider, found)
    if backend is None:
        raise UserError(f"--provider {provider} has nothing to wait for", hint="create waits")
    seconds = parse_duration(req.timeout, "--timeout") if req.timeout else 24 * 3600
    if req.ssh_key:
        _check_user_key(deps, provider, found, req.ssh_key)
    ref = ref_for(deps.registry, req.name, provider, req.where)
    from xcli.plan.cluster import WaitLogin

    plan = backend.plan_wait(ref, seconds, WaitLogin(req.ssh_key, req.ssh_user, req.os_login))
    deps.run_plan(plan, lambda: backend.handlers(ref))


def _check_user_key(deps: Deps, name: str, provider: Provider, key: str) -> None:
    """`--ssh-key`: the provider's own rule for the key it authorizes on its VMs."""
    keys = deps.registry.user_keys(name, provider)
    if keys is None:
        raise UserError(f"--provider {name} authorizes no SSH key of yours", hint="drop --ssh-key")
    keys.check_user_key(key)


def list_clusters(req: ListRequest, deps: Deps) -> Sequence[ClusterSummary]:
    zone = req.where.zone_flag  # the region is a filter here, not a requirement
    project = location(deps.registry, req.provider, req.where)[0]
    return deps.registry.get(req.provider).list_clusters(project, zone)


def list_everywhere(where: Location, deps: Deps) -> tuple[list[ClusterSummary], list[str]]:
    """`cluster list` without --provider: the default provider's clusters and this machine's
    (which need no credentials); a provider that cannot be read without credentials or without
    a project is named in the notes instead of failing the list, unless nothing at all could be
    listed."""
    from xcli.errors import ConfigError, NoCredentials

    rows: list[ClusterSummary] = []
    notes: list[str] = []
    failed: NoCredentials | ConfigError | None = None
    default = deps.registry.default()
    local = [n for n in deps.registry.names() if not deps.registry.capabilities(n).cloud]
    for name in dict.fromkeys([default, *local]):
        try:
            rows += list_clusters(ListRequest(name, where), deps)
        except (NoCredentials, ConfigError) as exc:  # no login, or no project set (issue 36)
            failed = exc
            notes.append(f"{name} clusters not read: {exc.message} ({exc.hint})")
    if failed is not None and not rows:
        raise failed
    return rows, notes


def describe(req: DescribeRequest, deps: Deps) -> Mapping[str, Any]:
    provider = cluster_index.provider_for(req.name, req.provider, deps.registry.default())
    ref = ref_for(deps.registry, req.name, provider, req.where)
    return deps.registry.get(provider).describe(ref)
