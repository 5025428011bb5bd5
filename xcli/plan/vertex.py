"""A Vertex AI Tensorboard instance for a cluster's workloads (XPK's --create-vertex-tensorboard).

What XPK does (AI-Hypercomputer/xpk@367c838 src/xpk/core/vertex.py l.23-50, through
AI-Hypercomputer/cloud-accelerator-diagnostics@33d421b pip_package/cloud_accelerator_diagnostics/
src/tensorboard_uploader/tensorboard.py `create_instance`): in the region given (default
us-central1, src/xpk/parser/cluster.py l.839-848) and under the display name given (default
`<cluster>-tb-instance`), keep the first Tensorboard of that display name if one exists, else
create one; then record its region, name and id in the cluster's metadata ConfigMap
(src/xpk/core/resources.py l.163-166), where `workload create --use-vertex-tensorboard` reads it.

The requests are aiplatform.v1's (the discovery document in the pinned google-api-python-client):
`tensorboards.list` (paged, matched on displayName as the SDK's caller does), `tensorboards.create`
with a GoogleCloudAiplatformV1Tensorboard body, and the long-running operation it returns, on the
regional endpoint `https://REGION-aiplatform.googleapis.com`.

JSON form: "api", "tensorboard" (the display name), "region", "requests" (the list, the create
when none matches, the operation poll), "outputs" {"tensorboard": its resource name, "id"}.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from xcli.plan.model import Fmt, Ref, Step, symbolic
from xcli.plan.steps import Text

DEFAULT_REGION = "us-central1"  # XPK's --tensorboard-region default
STEP_ID = "tensorboard"
LIST = "aiplatform.projects.locations.tensorboards.list"
CREATE = "aiplatform.projects.locations.tensorboards.create"
POLL = "aiplatform.projects.locations.tensorboards.operations.get"
CREATE_EXPERIMENT = "aiplatform.projects.locations.tensorboards.experiments.create"
WEB_SERVER = "tensorboard.googleusercontent.com"  # cloud-accelerator-diagnostics' UI host


def vertex_url(region: str) -> str:
    return f"https://{region}-aiplatform.googleapis.com/v1"


def default_name(cluster: str) -> str:
    return f"{cluster}-tb-instance"  # XPK's DEFAULT_VERTEX_TENSORBOARD_NAME after the cluster


@dataclass(frozen=True, kw_only=True)
class EnsureTensorboard(Step):
    """Keep the first Tensorboard named `display_name` in `region`, or create it."""

    kind: ClassVar[str] = "vertex_tensorboard"

    project: str
    region: str
    display_name: str
    cluster: str
    timeout_seconds: int = 1800

    @property
    def parent_url(self) -> str:
        return f"{vertex_url(self.region)}/projects/{self.project}/locations/{self.region}"

    def list_url(self, page_token: str = "") -> str:
        token = f"&pageToken={page_token}" if page_token else ""
        return f"{self.parent_url}/tensorboards?pageSize=100{token}"

    def create_url(self) -> str:
        return f"{self.parent_url}/tensorboards"

    def body(self) -> dict[str, Any]:
        return {
            "displayName": self.display_name,
            "description": f"created by xcli for GKE cluster {self.cluster}",
            "labels": {"created-by": "xcli"},
        }

    def details(self) -> dict[str, Any]:
        return {
            "api": CREATE,
            "tensorboard": self.display_name,
            "region": self.region,
            "requests": [
                {"api": LIST, "method": "GET", "url": self.list_url()},
                {
                    "api": CREATE,
                    "method": "POST",
                    "when": f"no Tensorboard is named {self.display_name}",
                    "url": self.create_url(),
                    "body": self.body(),
                },
                {
                    "api": POLL,
                    "method": "GET",
                    "url": f"{vertex_url(self.region)}/${{{self.id}.operation}}",
                    "until": "done",
                    "timeout_seconds": self.timeout_seconds,
                },
            ],
            "outputs": {
                "tensorboard": "its resource name, projects/P/locations/R/tensorboards/ID",
                "id": "its ID",
            },
        }


def tensorboard_step(project: str, region: str, name: str, cluster: str) -> EnsureTensorboard:
    return EnsureTensorboard(
        id=STEP_ID,
        summary=f"keep or create Vertex AI Tensorboard {name} in {region}",
        project=project,
        region=region,
        display_name=name,
        cluster=cluster,
    )


def metadata(region: str, name: str) -> dict[str, Any]:
    """The metadata ConfigMap's entries, as XPK names them, and the resource name."""
    return {
        "tensorboard_region": region,
        "tensorboard_name": name,
        "tensorboard_id": Ref(STEP_ID, "id"),
        "tensorboard": Ref(STEP_ID, "tensorboard"),
    }


@dataclass(frozen=True, kw_only=True)
class EnsureExperiment(Step):
    """A Tensorboard Experiment for one workload: created with the name as its ID and display
    name, as XPK's create_experiment does (tensorboardExperimentId = experiment_name); one that
    exists already (409 ALREADY_EXISTS) is kept.

    JSON form: "api", "experiment", "request" (the create), "outputs" {"experiment", "url"}."""

    kind: ClassVar[str] = "vertex_experiment"

    region: str
    tensorboard: Text  # projects/P/locations/R/tensorboards/ID, the tensorboard step's output
    experiment: str
    workload: str

    def create_url(self) -> Fmt:
        return Fmt(
            "{}/{}/experiments?tensorboardExperimentId={}",
            vertex_url(self.region),
            self.tensorboard,
            self.experiment,
        )

    def body(self) -> dict[str, Any]:
        return {
            "displayName": self.experiment,
            "description": f"created by xcli for workload {self.workload}",
            "labels": {"created-by": "xcli"},
        }

    def details(self) -> dict[str, Any]:
        return {
            "api": CREATE_EXPERIMENT,
            "experiment": self.experiment,
            "request": {
                "method": "POST",
                "url": symbolic(self.create_url()),
                "body": self.body(),
            },
            "accept": ["ALREADY_EXISTS"],
            "outputs": {
                "experiment": "its resource name",
                "url": f"https://{self.region}.{WEB_SERVER}/experiment/<its resource name, "
                "'/' as '+'>",
            },
        }


def experiment_url(region: str, experiment: str) -> str:
    """The Tensorboard UI's address of an experiment (cloud-accelerator-diagnostics'
    create_experiment: https://REGION.tensorboard.googleusercontent.com/experiment/NAME with
    '/' written '+')."""
    return f"https://{region}.{WEB_SERVER}/experiment/{experiment.replace('/', '+')}"


# the names the variables XPK passes a workload carry (src/xpk/core/docker_resources.py
# l.235-238: UPLOAD_DATA_TO_TENSORBOARD, then each tensorboard_config key upper-cased)
def workload_env(
    project: str, region: str, name: str, experiment: str
) -> tuple[tuple[str, str], ...]:
    return (
        ("UPLOAD_DATA_TO_TENSORBOARD", "True"),
        ("TENSORBOARD_PROJECT", project),
        ("TENSORBOARD_REGION", region),
        ("TENSORBOARD_NAME", name),
        ("EXPERIMENT_NAME", experiment),
    )
