"""GKE Managed Machine Learning Diagnostics (XPK's --managed-mldiagnostics).

What XPK does (AI-Hypercomputer/xpk@367c838 src/xpk/commands/cluster.py l.561-582 and
l.1407-1410, src/xpk/commands/managed_ml_diagnostics.py l.255-291):
- grants the nodes' default Compute Engine service account
  (`NUMBER-compute@developer.gserviceaccount.com`) roles/hypercomputecluster.editor,
  roles/storage.objectUser and roles/logging.logWriter on the project;
- on GKE 1.35.0-gke.3065000 and later, creates the cluster with
  `--enable-managed-mldiagnostics`: container.v1 `Cluster.managedMachineLearningDiagnosticsConfig
  {enabled: true}` (the discovery document in the pinned google-api-python-client);
- on older versions, installs cert-manager, a webhook and an operator downloaded from an Artifact
  Registry generic repository instead. xcli does not: it refuses a --gke-version older than that.

The `project_iam` step's JSON form: "api", "project", "roles", "member" (by project number),
"requests" (the project read, getIamPolicy, then setIamPolicy when a role lacks the member).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, ClassVar

from xcli.plan.model import Step

CRM_API = "https://cloudresourcemanager.googleapis.com/v3"
MIN_GKE = "1.35.0-gke.3065000"
ROLES = ("roles/hypercomputecluster.editor", "roles/storage.objectUser", "roles/logging.logWriter")
FIELD = "managedMachineLearningDiagnosticsConfig"


def compute_account(number: str) -> str:
    return f"serviceAccount:{number}-compute@developer.gserviceaccount.com"


def _version(text: str) -> tuple[int, ...]:
    """1.35.0-gke.3065000 -> (1, 35, 0, 3065000); a bare 1.35 compares as 1.35.0."""
    numbers = [int(n) for n in re.findall(r"\d+", text)]
    return tuple(numbers + [0] * (4 - len(numbers)))


def too_old(version: str) -> bool:
    return _version(version) < _version(MIN_GKE)


@dataclass(frozen=True, kw_only=True)
class ProjectIamGrant(Step):
    """Add one member to some roles of a project's IAM policy, read-modify-write (nothing is
    written when every role has it; a concurrent change, 409 ABORTED, reads again)."""

    kind: ClassVar[str] = "project_iam"

    project: str
    roles: tuple[str, ...]

    def details(self) -> dict[str, Any]:
        url = f"{CRM_API}/projects/{self.project}"
        return {
            "api": "cloudresourcemanager.projects.setIamPolicy",
            "project": self.project,
            "roles": list(self.roles),
            "member": compute_account(f"${{{self.id}.project_number}}"),
            "requests": [
                {
                    "api": "cloudresourcemanager.projects.get",
                    "method": "GET",
                    "url": url,
                    "outputs": {"project_number": "name@last"},
                },
                {
                    "api": "cloudresourcemanager.projects.getIamPolicy",
                    "method": "POST",
                    "url": f"{url}:getIamPolicy",
                    "body": {"options": {"requestedPolicyVersion": 3}},
                },
                {
                    "api": "cloudresourcemanager.projects.setIamPolicy",
                    "method": "POST",
                    "when": "a role lacks the member",
                    "url": f"{url}:setIamPolicy",
                    "body": "the policy read, with the member added to each role (its etag kept)",
                },
            ],
        }


def grant_step(project: str) -> ProjectIamGrant:
    return ProjectIamGrant(
        id="ml-diagnostics-iam",
        summary="grant the nodes' default service account the roles ML Diagnostics writes with",
        project=project,
        roles=ROLES,
    )
