"""The live handlers of `profile_capture` steps: SSH forwards from this machine (VM-style
clusters, gateways/profile_capture.py) or one exec into the first pod (GKE,
gateways/kube/exec.py); and of the stacks steps (gateways/stacks.py, gateways/kube/exec.py)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from xcli.plan.profile import ProfileCapture, ProfileResult, file_stem, open_command

if TYPE_CHECKING:
    from xcli.gateways.kube.api import KubeApi
    from xcli.plan.contract import StepContext
    from xcli.plan.fanout import SshSettings
    from xcli.plan.profile import Route


def ssh_handler(routes: Sequence[Route], settings: SshSettings) -> Any:
    def handle(step: Any, ctx: StepContext) -> Mapping[str, Any]:
        from xcli.gateways.profile_capture import run

        assert isinstance(step, ProfileCapture)
        return {"result": run(step, routes, settings)}

    return handle


def exec_handler(api: KubeApi) -> Any:
    """Run the step's command in its pod; the files are named from the trace's own log (a
    gs:// session folder is not listed from here)."""

    def handle(step: Any, ctx: StepContext) -> Mapping[str, Any]:
        from xcli.gateways.kube.exec import run
        from xcli.gateways.profile_capture import reasons
        from xcli.plan.profile import exec_path

        assert isinstance(step, ProfileCapture) and step.pod and step.namespace
        done = run(api.exec_target(step.namespace, step.pod, exec_path(step)))
        result = ProfileResult(step.session_dir, open_command=open_command(step.log_dir))
        log = done.stderr + done.stdout
        failed = reasons(log)
        for host in step.hosts:
            if done.exit_code != 0:
                why = done.error or _last(log) or f"exit code {done.exit_code}"
                if "No module named 'xprof'" in log:
                    why = f"xprof is not installed in pod {step.pod}'s image (pip install xprof)"
                result.missing[host.label] = f"the capture in {step.pod} failed: {why}"
            elif host.endpoint in failed:
                result.missing[host.label] = failed[host.endpoint]
            else:
                result.files[host.label] = f"{step.session_dir}/{file_stem(host.label)}.xplane.pb"
        return {"result": result}

    return handle


def _last(log: str) -> str:
    lines = [x.strip() for x in log.splitlines() if x.strip()]
    return lines[-1][:200] if lines else ""


def stacks_handler() -> Any:
    """Run a plan_stacks Broadcast step and group the dumps (gateways/stacks.py, the one VM
    path; --hang-after's dump runs it too)."""

    def handle(step: Any, ctx: StepContext) -> Mapping[str, Any]:
        from xcli.gateways.stacks import capture_stacks

        return {"report": capture_stacks(step, ctx.cancelled)}

    return handle


def pod_stacks_handler(api: KubeApi) -> Any:
    """Run a PodStacks step: one exec per pod, at most its window at once; group the dumps."""

    def handle(step: Any, ctx: StepContext) -> Mapping[str, Any]:
        from xcli.gateways.kube.exec import run_all
        from xcli.plan.stacks import PodStacks, group_stacks

        assert isinstance(step, PodStacks)
        targets = [
            api.exec_target(step.namespace, p.pod, path)
            for p, path in zip(step.pods, step.paths(), strict=True)
        ]
        dumps, failed = {}, {}
        for pod, done in zip(step.pods, run_all(targets, window=step.window), strict=True):
            if done.exit_code == 0 and done.stdout.strip():
                dumps[pod.label] = done.stdout
            else:
                said = [x for x in done.stderr.splitlines() if x.strip()]
                why = said[-1].removeprefix("xcli: ") if said else done.error
                failed[pod.label] = why or f"exit code {done.exit_code}"
        return {"report": group_stacks(dumps, failed)}

    return handle
