"""Vertex AI over plain REST (google-auth's AuthorizedSession through RestGateway): the
Tensorboard a cluster's workloads log to (xcli/plan/vertex.py says what and why).

Three calls of aiplatform.v1, as the step prints them: tensorboards.list (paged) to find one of
the display name, tensorboards.create when there is none, and GET on the operation it returns
(`https://REGION-aiplatform.googleapis.com/v1/<operation name>`) until it is done.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from xcli.errors import CloudError
from xcli.gateways.google.rest import RestError, RestGateway
from xcli.plan.contract import StepContext
from xcli.plan.vertex import (
    CREATE,
    EnsureExperiment,
    EnsureTensorboard,
    experiment_url,
    vertex_url,
)


class VertexGateway:
    def __init__(self, rest: RestGateway | None = None) -> None:
        self.rest = rest or RestGateway()

    def ensure(self, step: EnsureTensorboard, ctx: StepContext) -> Mapping[str, Any]:
        try:
            found = self._find(step, ctx)
            if found:
                ctx.report(f"{step.display_name} exists ({found}); kept")
                return _outputs(found)
            answer = self.rest.send("POST", step.create_url(), ctx, step.body())
            made = self._done(step, answer, ctx)
        except RestError as exc:
            hint = "check the project and region, then run the command again"
            if exc.code == 403:
                hint = f"ask for a role that allows {CREATE} (and enable aiplatform.googleapis.com)"
            raise CloudError(
                f"{step.summary}: {exc.message} (HTTP {exc.code})", hint=hint
            ) from None
        return _outputs(made)

    def experiment(self, step: EnsureExperiment, ctx: StepContext) -> Mapping[str, Any]:
        url = str(step.create_url())
        try:
            made = self.rest.send("POST", url, ctx, step.body())
            name = str(made["name"])
        except RestError as exc:
            if exc.code != 409:
                raise CloudError(
                    f"{step.summary}: {exc.message} (HTTP {exc.code})",
                    hint="check the cluster's Tensorboard (xcli cluster create "
                    "--vertex-tensorboard) and your Vertex AI permissions",
                ) from None
            name = f"{step.tensorboard}/experiments/{step.experiment}"
            ctx.report("exists; kept")
        return {"experiment": name, "url": experiment_url(step.region, name)}

    def _find(self, step: EnsureTensorboard, ctx: StepContext) -> str | None:
        token = ""
        while True:
            page = self.rest.send("GET", step.list_url(token), ctx)
            for board in page.get("tensorboards", []):
                if board.get("displayName") == step.display_name:
                    return str(board["name"])  # the first, as XPK keeps the first
            token = str(page.get("nextPageToken") or "")
            if not token:
                return None

    def _done(self, step: EnsureTensorboard, answer: Mapping[str, Any], ctx: StepContext) -> str:
        if answer.get("done"):
            op = self.rest.operation_result(answer, step.summary)
        else:
            url = f"{vertex_url(step.region)}/{answer['name']}"
            op = self.rest.wait_operation(
                url, CREATE, step.summary, step.timeout_seconds, ctx, progress="creating"
            )
        return str(op.get("response", {}).get("name", ""))


def _outputs(name: str) -> dict[str, str]:
    return {"tensorboard": name, "id": name.rsplit("/", 1)[-1]}
