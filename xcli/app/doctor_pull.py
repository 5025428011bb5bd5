"""`xcli doctor`'s image-pull check (issue 32 item 4): may the nodes pull from the repository
`workload create --base-docker-image` pushes to (REGION-docker.pkg.dev/PROJECT/xcli)?

Two reads, judged together: the project's number (cloudresourcemanager.v3 projects.get), and
the repository's IAM policy (artifactregistry.v1 repositories.getIamPolicy). The nodes run as
the project's default Compute Engine service account; it needs a role that pulls
(image/steps.py PULLS) on the repository, which organisations created after 2024-05-03 no
longer give it through Editor. A repository that does not exist yet is no failure:
`workload create` grants the role when it creates it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from xcli.app.doctor import Check

if TYPE_CHECKING:
    from xcli.plan.contract import StepResult

REPOSITORY = "xcli"  # image/build.py DEFAULT_REPOSITORY
AR = "https://artifactregistry.googleapis.com/v1"
CRM = "https://cloudresourcemanager.googleapis.com/v3"


def reads(project: str, region: str) -> list[Any]:
    from xcli.plan.doctor_steps import CheckRead

    name = f"projects/{project}/locations/{region}/repositories/{REPOSITORY}"
    return [
        CheckRead(
            id="project-number",
            summary=f"read the number of project {project} (its nodes' service account)",
            after=("credentials",),
            api="cloudresourcemanager.projects.get",
            method="GET",
            url=f"{CRM}/projects/{project}",
        ),
        CheckRead(
            id="image-repository-iam",
            summary=f"read who may pull from {name}",
            after=("credentials",),
            api="artifactregistry.projects.locations.repositories.getIamPolicy",
            method="GET",
            url=f"{AR}/{name}:getIamPolicy?options.requestedPolicyVersion=3",
        ),
    ]


def _answer(result: StepResult | None) -> tuple[int, Any]:
    if result is None or result.status != "ok":
        return 0, None
    out = result.outputs
    return int(out.get("status", 0)), out.get("answer", out.get("message"))


def check(found: dict[str, StepResult], project: str, region: str) -> Check:
    from xcli.image.steps import READER, compute_account, has_pull

    status, project_answer = _answer(found.get("project-number"))
    if status != 200 or not isinstance(project_answer, dict):
        return Check("image pull", None, f"project {project}'s number could not be read")
    member = compute_account(str(project_answer.get("name", "")).rsplit("/", 1)[-1])
    status, policy = _answer(found.get("image-repository-iam"))
    repo = f"{region}-docker.pkg.dev/{project}/{REPOSITORY}"
    if status == 404:
        return Check(
            "image pull", None, f"{repo} does not exist yet (workload create grants the role)"
        )
    if status != 200 or not isinstance(policy, dict):
        return Check("image pull", None, f"the IAM policy of {repo} could not be read ({status})")
    if has_pull(policy, member):
        return Check("image pull", True, f"{member} may pull from {repo}")
    fix = (
        f"gcloud artifacts repositories add-iam-policy-binding {REPOSITORY} --location {region} "
        f"--project {project} --member {member} --role {READER}"
    )
    return Check(
        "image pull",
        False,
        f"{member} has no role that pulls from {repo}: built images end in ImagePullBackOff",
        fix,
    )
