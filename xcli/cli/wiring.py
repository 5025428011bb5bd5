"""The application layer's dependencies as the CLI supplies them (xcli/app/deps.py)."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from xcli.app.deps import Deps, EngineChoice, Handlers
from xcli.cli.common import Common, confirm, require_answerable, run_plan
from xcli.cli.providers import registry

if TYPE_CHECKING:
    from xcli.execute.result import RunResult
    from xcli.gateways.backoff import Timing
    from xcli.gateways.ssh.output import OutputSink
    from xcli.plan.fanout import Broadcast, SshSettings, Target
    from xcli.plan.fanout_result import FanoutResult
    from xcli.plan.model import Plan
    from xcli.storage.service import StorageGateways
    from xcli.workload.facts import Facts

T = TypeVar("T")


def deps(common: Common, facts: Facts | None = None, *, verbose: bool = False) -> Deps:
    """What the use cases of this command reach the outside through. `facts`: what a workload
    command reads before it plans (default: the cluster, or nothing on a dry-run)."""
    from xcli.app.record import DRY, LIVE
    from xcli.app.workload_facts import LIVE_FACTS, DryFacts
    from xcli.cli.deps import current

    def run(plan: Plan, handlers: Handlers) -> None:
        run_plan(common, plan, handlers)

    def run_quiet(plan: Plan, handlers: Handlers) -> RunResult | None:
        if common.dry_run:
            run_plan(common, plan, handlers)
            return None
        from xcli.execute.live import LiveExecutor

        # the dry-run prints them with the plan; a live run says each once (-v: every time)
        for note in plan.notes if verbose else _first_time(plan.notes):
            click.echo(f"note: {note}", err=True)
        return LiveExecutor(handlers()).run(plan)

    def sink(folder: Path | None) -> OutputSink:
        from xcli.gateways.ssh.output import OutputSink, default_log_dir

        # With --output json, stdout carries only the JSON summary; worker output goes to stderr.
        out = sys.stderr.buffer if common.output != "text" else sys.stdout.buffer
        return OutputSink(out, sys.stderr.buffer, folder or default_log_dir())

    return Deps(
        registry=registry(),
        run_plan=run,
        run_quiet=run_quiet,
        confirm=lambda question: confirm(common, question),
        require_answerable=lambda what: require_answerable(common, what),
        say=_say,
        broadcast=_broadcast,
        sink=sink,
        choose_engine=_choose_engine,
        control_dir=_control_dir,
        shell=_shell,
        stop_workload=_stop_workload,
        terraform_binary=_terraform_binary,
        terraform_handlers=_terraform_handlers,
        unsupported_flags=_unsupported_flags,
        record=DRY if common.dry_run else LIVE,  # the dry-run reads and records nothing
        timing=_timing(),
        storage_gateways=_once(_storage_gateways),
        terraform_connections=current().terraform_connections,
        workload_gateways=current().workload_gateways,
        facts=facts or (DryFacts() if common.dry_run else LIVE_FACTS),
        image_handlers=_image_handlers,
    )


def _timing() -> Timing:
    """The clocks and sleep of this run (the real ones unless main() was given others)."""
    from xcli.cli.deps import current
    from xcli.gateways.backoff import Timing

    found = current().timing
    return found if found is not None else Timing()


def doctor_handlers() -> dict[str, object]:
    """`xcli doctor`'s live read handlers (credentials, APIs, quota, zone)."""
    from xcli.gateways.google.doctor import handlers

    return handlers()


def quiet_runner(common: Common) -> Callable[[Plan, Callable[[], Mapping[str, Any]]], None]:
    """Run a plan live with progress on stderr and no summary (stdout carries the result of
    `cluster test-network`); a failed step is one PlanFailed."""

    def run(plan: Plan, handlers: Callable[[], Mapping[str, Any]]) -> None:
        from xcli.cli.progress import close_reporter, make_reporter
        from xcli.errors import PlanFailed
        from xcli.execute.live import LiveExecutor

        reporter = make_reporter(common.output)
        try:
            result = LiveExecutor(handlers(), reporter).run(plan)
        finally:
            close_reporter(reporter)
        if not result.ok:
            failed = result.by_status("failed")
            reason = failed[0].error if failed and failed[0].error else None
            raise PlanFailed(
                f"{plan.title}: {reason or 'a step failed'}",
                hint=getattr(reason, "hint", "") or "run the same command again",
            )

    return run


def _image_handlers() -> Mapping[str, Any]:
    """The registry (Google credentials for Google hosts, anonymous elsewhere) and Artifact
    Registry handlers of an image build."""
    from xcli.gateways.google.artifact_registry import ArtifactRegistry, google_credentials
    from xcli.gateways.registry.push import ImageHandlers

    return {**ImageHandlers(google_credentials).handlers(), **ArtifactRegistry().handlers()}


def _once(make: Callable[[], T]) -> Callable[[], T]:
    made: list[T] = []

    def get() -> T:
        if not made:
            made.append(make())
        return made[0]

    return get


def _storage_gateways() -> StorageGateways:
    from xcli.cli.deps import current
    from xcli.storage.service import StorageGateways

    found = current().storage_gateways
    return found if found is not None else StorageGateways()


def _first_time(notes: Sequence[str]) -> list[str]:
    """The notes this machine has not said yet (their digests are kept in the state folder)."""
    import hashlib

    from xcli import paths

    if not notes:
        return []
    said = paths.state_dir() / "notes-said"
    try:
        known = set(said.read_text(encoding="utf-8").split())
    except OSError:
        known = set()
    new = {hashlib.sha256(n.encode()).hexdigest()[:16]: n for n in notes}
    fresh = [note for digest, note in new.items() if digest not in known]
    if fresh:
        from xcli.errors import UserError
        from xcli.state_files import open_private

        try:
            with open_private(said) as out:  # owner-only, as every file under the state folder
                out.write("".join(d + "\n" for d in new if d not in known).encode())
        except (OSError, UserError):
            pass  # a read-only state folder: the note is said again next time, nothing worse
    return fresh


def _broadcast(
    step: Broadcast, sink: OutputSink, cancelled: threading.Event | None = None
) -> FanoutResult:
    from xcli.gateways.ssh.broadcast import run_broadcast

    if cancelled is not None:
        sink.on_gone = cancelled.set  # `| head` closed our stdout: stop the workers' commands
    result = run_broadcast(step, sink, cancelled)
    if sink.reader_gone.is_set():
        # end as a pipeline stage does when its reader leaves: quietly, no worker blamed
        # (cli/errors.py turns BrokenPipeError into exit 1 with nothing printed)
        raise BrokenPipeError(32, "stdout closed by its reader")
    return result


def _choose_engine(targets: Sequence[Target], settings: SshSettings) -> EngineChoice:
    from xcli.gateways.ssh.choice import choose

    return choose(targets, settings)


def _control_dir() -> Path:
    from xcli.gateways.ssh.openssh_engine import control_dir

    return control_dir()


def _shell(argv: Sequence[str], sockets: Path | None) -> None:
    from xcli.gateways import process

    if sockets is not None:
        from xcli.gateways.ssh.openssh_engine import ensure_control_dir

        ensure_control_dir(sockets)
    process.replace(argv)


def _stop_workload(folder: Path) -> None:
    from xcli.gateways.workload_driver import stop

    stop(folder)


def _terraform_binary() -> str | None:
    from xcli.gateways.terraform import find_binary

    return find_binary()


def _terraform_handlers(after_apply: Mapping[str, Any] | None) -> Mapping[str, Any]:
    from xcli.gateways.terraform import TerraformHandlers

    return TerraformHandlers(_say, _ask, after_apply).as_mapping()


def _ask(question: str) -> bool:
    # A full line, then the answer: the live progress display prints whole lines only.
    click.echo(f"{question} [y/N]", err=True)
    return sys.stdin.readline().strip().lower() in ("y", "yes")


def _say(line: str) -> None:
    click.echo(line, err=True)


def _unsupported_flags(
    provider: str, values: Mapping[str, Any], supported: frozenset[str]
) -> list[str]:
    from xcli.cli.options import owned_options
    from xcli.cli.terraform_mode import unsupported_flags

    # the provider's own flags and the shared groups it takes (--network, --private), not
    # Terraform mode's own (--terraform, --force)
    decorators = owned_options(provider, skip=("terraform", "force"))
    return unsupported_flags(values, decorators, supported)
