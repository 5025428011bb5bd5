"""What a provider gives Terraform mode: the one interface between the generic folder writer and
plan (xcli/terraform/folder.py, plan.py) and a provider's modules.

A provider that supports `cluster create --terraform DIR` has a `terraform` attribute holding
one of these (providers/base.Provider); the others hold None. Every method is pure except
`live_handlers`, which builds the handlers for the steps `post_apply` makes (gateways, lazily).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from xcli.plan.model import Step
from xcli.spec import ClusterSpec

if TYPE_CHECKING:
    from xcli.plan.contract import Handler


class TerraformSupport(Protocol):
    # Provider flags the Terraform modules express; any other provider flag given (a value
    # other than its default) is refused rather than silently dropped.
    flags: frozenset[str]

    def check(self, spec: ClusterSpec) -> None:
        """Refuse, before anything is written, what the Terraform modules cannot express."""
        ...

    def modules(self, spec: ClusterSpec) -> tuple[str, ...]:
        """The shipped modules (folders of terraform/) the deployment calls."""
        ...

    def inputs(self, spec: ClusterSpec) -> dict[str, Any]:
        """The module variables of terraform.tfvars.json besides project_id, region and zone."""
        ...

    def module_of(self, variable: str) -> str:
        """The module a root variable (a key of `inputs`) is passed to."""
        ...

    def root_context(self, spec: ClusterSpec) -> dict[str, Any]:
        """What the root templates (templates/terraform/*.j2) choose their module calls by."""
        ...

    def instructions(self, spec: ClusterSpec) -> list[str]:
        """Lines instructions.txt adds after the create and delete commands."""
        ...

    def notes(self, spec: ClusterSpec, binary: str | None) -> tuple[list[str], list[str]]:
        """The plan's notes before and after the generic "to create the cluster, run" lines."""
        ...

    def post_apply(self, spec: ClusterSpec, after: str) -> Sequence[Step]:
        """The API path's finishing steps, run once `terraform apply` has made the
        infrastructure; each runs after step `after` (whose outputs are terraform's)."""
        ...

    def live_handlers(self, spec: ClusterSpec, connections: Any) -> Mapping[str, Handler]:
        """Handlers for the step kinds `post_apply` makes, over `connections`
        (providers/terraform_live.Connections); built lazily, no credentials looked up."""
        ...
