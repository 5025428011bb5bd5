"""`--script-dir` on VM-style clusters (queued resources, local): no image, the folder itself
copied to every worker before the command runs, and the command run in it.

The folder is packed into the same reproducible layers as an image build (xcli/image/layers.py).
Each worker keeps the layer files it was sent under `~/.xcli/layers/<sha256>`; a worker is sent
only the layers it lacks (so a one-file change sends one layer), then assembles the folder
`~/.xcli/scripts/<tag>` from all of them, once: the tag is a hash of the layers, so the same
folder is the same directory, and a changed one a new directory (nothing half-updated under a
running command). The assembly unpacks into a temporary directory and renames it into place,
so workers sharing a home directory never see half a folder.

JSON form of the `script_sync` step: "cluster", "folder" (where on the workers), "layers"
[{name, diff_id, digest, size, files}], "requests" (what each worker gets).
"""

from __future__ import annotations

import hashlib
import shlex
from dataclasses import dataclass, field
from typing import Any, ClassVar

from xcli.image import secrets
from xcli.image.layers import Layer
from xcli.plan.model import Step

LAYERS = ".xcli/layers"
SCRIPTS = ".xcli/scripts"
MISSING = 66  # the assembly's exit code when a layer file is not on the worker


def tag_of(layers: tuple[Layer, ...]) -> str:
    return hashlib.sha256("\n".join(x.diff_id for x in layers).encode()).hexdigest()[:16]


def folder(tag: str) -> str:
    return f"{SCRIPTS}/{tag}"


def run_in(tag: str, command: str) -> str:
    """The workload's command, run in the copied folder."""
    return f'cd "$HOME/{folder(tag)}" && {command}'


def assemble(tag: str, layers: tuple[Layer, ...]) -> str:
    """The shell script that builds ~/.xcli/scripts/<tag> from the layer files (once)."""
    names = " ".join(shlex.quote(x.digest.removeprefix("sha256:")) for x in layers)
    return (
        f'L="$HOME/{LAYERS}"; D="$HOME/{folder(tag)}"; '
        f'[ -f "$D/.xcli-complete" ] && exit 0; '
        f'for d in {names}; do [ -f "$L/$d" ] || exit {MISSING}; done; '
        f'mkdir -p "$HOME/{SCRIPTS}" && T=$(mktemp -d "$D.XXXXXX") || exit 1; '
        f'for d in {names}; do tar -xzf "$L/$d" -C "$T" --strip-components=1 || exit 1; done; '
        f'touch "$T/.xcli-complete" && chmod 755 "$T" && '
        f'{{ mv -T "$T" "$D" 2>/dev/null || {{ rm -rf "$T"; [ -f "$D/.xcli-complete" ]; }}; }}'
    )


@dataclass(frozen=True, kw_only=True)
class ScriptSync(Step):
    """Copy the packed folder to every worker of `cluster` (what each lacks), assemble it."""

    kind: ClassVar[str] = "script_sync"

    cluster: str
    tag: str
    layers: tuple[Layer, ...]
    store: str = field(default="", metadata={"print": False})
    withheld: tuple[tuple[str, str], ...] = ()  # secret and VCS paths left out: (path, why)

    def details(self) -> dict[str, Any]:
        return {
            "cluster": self.cluster,
            "folder": f"~/{folder(self.tag)}",
            **secrets.plan_note(self.withheld),
            "layers": [
                {"name": x.name, "diff_id": x.diff_id, "digest": x.digest, "size": x.size,
                 "files": x.files}
                for x in self.layers
            ],
            "requests": [
                {"on": "each worker lacking layers (as this machine last sent them)",
                 "ssh": f"mkdir -p ~/{LAYERS}"},
                {"on": "the same workers", "scp": f"the layers it lacks -> ~/{LAYERS}/"},
                {"on": "every worker", "ssh": assemble(self.tag, self.layers),
                 "then": f"exit {MISSING} (a layer gone): send it every layer, assemble again"},
            ],
        }  # fmt: skip
