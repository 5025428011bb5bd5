"""Runs terraform (or tofu) and writes deployment files: the live side of Terraform mode.

Subprocesses run with argv lists (never a shell), with TF_IN_AUTOMATION and TF_INPUT=0 so
terraform never waits for input that nobody can give; their output is streamed line by line.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from xcli.errors import CloudError, InternalError, UserError
from xcli.plan.contract import Handler, StepContext

Echo = Callable[[str], None]
Ask = Callable[[str], bool]


def find_binary(env: Mapping[str, str] | None = None) -> str | None:
    """$XCLI_TERRAFORM, else terraform, else tofu on PATH; None when there is none."""
    env = os.environ if env is None else env
    chosen = env.get("XCLI_TERRAFORM")
    path = env.get("PATH")
    if chosen:
        if shutil.which(chosen, path=path) is None:
            raise UserError(
                f"XCLI_TERRAFORM={chosen} is not an executable",
                hint="point it at terraform or tofu, or unset it to search PATH",
            )
        return chosen
    for name in ("terraform", "tofu"):
        if shutil.which(name, path=path) is not None:
            return name
    return None


def run_streaming(
    argv: list[str], echo: Echo, *, capture: bool = False, cancelled: Any = None
) -> str:
    """Run argv; echo each output line (unless captured); return stdout; raise on failure."""
    env = {**os.environ, "TF_IN_AUTOMATION": "1", "TF_INPUT": "0"}
    try:
        proc = subprocess.Popen(
            argv,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE if capture else subprocess.STDOUT,
            text=True,
            env=env,
        )
    except OSError as exc:
        raise UserError(f"cannot run {argv[0]}: {exc.strerror}", hint="is it installed?") from None
    if capture:
        out, err = proc.communicate()
        kept = [out]
    else:
        assert proc.stdout is not None
        kept = []
        err = ""
        for line in proc.stdout:
            kept.append(line)
            echo(line.rstrip("\n"))
            if cancelled is not None and cancelled.is_set():
                proc.terminate()
    code = proc.wait()
    if code != 0:
        tail = (err or "".join(kept[-5:])).strip().splitlines()
        raise CloudError(
            f"`{shlex.join(argv)}` failed with exit code {code}"
            + (f": {tail[-1]}" if tail else ""),
            hint="the output above says why; fix it and run the same command again "
            "(terraform continues from its state)",
        )
    return "".join(kept)


def _public_outputs(text: str) -> dict[str, Any]:
    """`terraform output -json` -> {name: value}, leaving out sensitive values."""
    data = json.loads(text or "{}")
    return {k: v.get("value") for k, v in sorted(data.items()) if not v.get("sensitive")}


class TerraformHandlers:
    """Handlers for the step kinds of a Terraform-mode plan."""

    def __init__(self, echo: Echo, ask: Ask, fallback: Mapping[str, Handler] | None = None):
        self.echo = echo
        self.ask = ask
        self.fallback = dict(fallback or {})

    def as_mapping(self) -> dict[str, Handler]:
        return {**self.fallback, "local": self.local, "terraform": self.terraform}

    def local(self, step: Any, ctx: StepContext) -> Mapping[str, Any]:
        if step.action == "write_file":
            dest = Path(str(step.args["dest"]))
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_text(str(step.args["content"]), encoding="utf-8")
            return {"path": str(dest)}
        if step.action == "confirm":
            if not self.ask(str(step.args["question"])):
                raise UserError("not applied: the answer was no", hint="the folder is kept as is")
            return {}
        if "local" in self.fallback:
            return self.fallback["local"](step, ctx)
        raise InternalError(f"no handler for local action {step.action!r}")

    def terraform(self, step: Any, ctx: StepContext) -> Mapping[str, Any]:
        capture = step.capture == "outputs"
        text = run_streaming(list(step.argv), self.echo, capture=capture, cancelled=ctx.cancelled)
        return _public_outputs(text) if capture else {}
