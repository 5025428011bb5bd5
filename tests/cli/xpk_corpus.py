"""Replay XPK's documented and tested commands (tests/data/xpk_commands.json, collected by
scripts/collect_xpk_commands.py from AI-Hypercomputer/xpk at a pinned commit) as an XPK user
types them, `xpk` replaced by `xcli`, and judge each: ran, or refused with a hint.

Shell words are made as bash would make them with the values below (the documents' own
placeholders given values, `$(date +%H%M)` a fixed time); a pipe ends the command. Commands
that change something get `--dry-run` (XPK's global flag, docs/from-xpk.md); read-only ones
run as typed and stop at the credentials check (no credentials exist in a test), which counts
as ran: the command, its flags and its values were all taken.
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from tests.conftest import DATA

CORPUS = DATA / "xpk_commands.json"

VALUES = {
    "PROJECT": "my-project", "PROJECT_ID": "my-project", "ZONE": "us-east5-b",
    "COMPUTE_ZONE": "us-east5-b", "LOCATION": "us-east5-b", "CLUSTER": "xpk-test",
    "CLUSTER_NAME": "xpk-test", "RESERVATION": "my-res", "RESERVATION_ID": "my-res",
    "RESERVATIONS": "my-res", "RESERVATION_NAME": "my-res", "NEW_RESERVATION": "my-res2",
    "NUM_SLICES": "1", "NUM_NODES": "2", "NUM_CUBES": "4", "DEVICE_TYPE": "v4-8",
    "ACCELERATOR_TYPE": "tpu7x-4x4x4", "WORKLOAD_SLICE": "4x4x12", "STORAGE_NAME": "test-storage",
    "WORKLOAD_NAME": "xpk-test-workload", "WORKLOAD_IMAGE": "gcr.io/my-project/img:1",
    "BASE_OUTPUT_DIR": "/data-out", "MAXTEXT_COMMAND": "python3 MaxText/train.py base.yml",
    "MAXTEXT_ARGS": "steps=10", "XLA_FLAGS": "--xla_tpu_enable_async_all_gather=true",
    "CLUSTER_ARGUMENTS": "--network=n --subnetwork=s", "USER": "alice",
    "CLUSTER_NETWORK_ARGUMENTS": "--network=n --subnetwork=s",
    "EMPTY_CLUSTER_NAME": "xpk-empty", "PRIVATE_CLUSTER_NAME": "xpk-private",
    "TPU_CLUSTER_NAME": "xpk-tpu", "GPU_CLUSTER_NAME": "xpk-gpu",
    "STORAGE_WRITE_WORKLOAD": "write-w", "STORAGE_READ_WORKLOAD": "read-w",
    "STORAGE_DELETE_WORKLOAD": "delete-w", "RANDOM_SEED": "7",
    "WOKRKLOAD_NUM_NODES": "2",  # sic, usage/workloads.md:103
}  # fmt: skip
# GitHub expressions of XPK's workflows (${{ inputs.x }}, ${{ secrets.X }})
GITHUB = {
    "inputs.storage-name": "test-storage", "inputs.cluster-name": "xpk-storage-tests",
    "inputs.zone": "us-central2-b", "inputs.storage-type": "gcpfilestore",
    "inputs.storage-command": "ls", "secrets.GCP_TPU_V4_RESERVATION": "my-res",
    "secrets.NETWORK_NAME": "n", "secrets.SUBNETWORK_NAME": "s",
    "secrets.BUCKET_NAME": "my-bucket", "inputs.device-type": "n2-standard-64-1",
}  # fmt: skip
# The documents' placeholders, which bash would read as redirects or leave as words
PLACEHOLDERS = {
    "<true/false>": "false", "<maxtext docker image>": "gcr.io/my-project/maxtext:1",
    "<output directory>": "gs://my-bucket/out", "<dataset path>": "gs://my-bucket/data",
    "--cluster CLUSTER_NAME": "--cluster xpk-test",
    "--device-type DEVICE_TYPE": "--device-type h100-80gb-8",
}  # fmt: skip
# where a document's own text gives a variable another value (usage/clusters.md:378-380: adapt
# takes h200-141gb-8 only)
OVERRIDES = {"docs/usage/clusters.md:384": {"DEVICE_TYPE": "h200-141gb-8"}}
# where a workflow step runs for one input only: reusable_storage_create.yaml:79 runs the attach
# of line 81 `if: inputs.storage-command == 'attach' && inputs.storage-type == 'gcsfuse'`
GITHUB_OVERRIDES = {
    ".github/workflows/reusable_storage_create.yaml:81": {"inputs.storage-type": "gcsfuse"},
}
READ_ONLY = {
    ("cluster", "list"), ("cluster", "describe"), ("workload", "list"), ("storage", "list"),
    ("info",), ("inspector",), ("version",), ("config",),
}  # fmt: skip


@dataclass(frozen=True)
class Command:
    source: str
    text: str  # as XPK documents it

    def argv(self, folder: Path) -> list[str]:
        """xcli's argv: the words bash would make, `xpk` dropped, `--dry-run` added where the
        command changes something."""
        text = self.text
        for key, value in PLACEHOLDERS.items():
            text = text.replace(key, value)
        github = {**GITHUB, **GITHUB_OVERRIDES.get(self.source, {})}
        text = re.sub(r"\$\{\{\s*([\w.-]+)\s*\}\}", lambda m: github.get(m.group(1), "x"), text)
        text = text.replace("$(date +%H%M)", "1200").replace("$(date +%H-%M-%S)", "12-00-00")
        text = text.replace("$(USER)", "alice")
        values = {**VALUES, **OVERRIDES.get(self.source, {})}
        for key in ("ACCELERATOR_TYPE", "DEVICE_TYPE"):  # the shape first: the zone follows it
            text = text.replace(f"${{{key}}}", values[key]).replace(f"${key}", values[key])
        zone = configured_zone(text.split())  # the user's $ZONE offers the TPU they name
        values.update(dict.fromkeys(("ZONE", "COMPUTE_ZONE", "LOCATION"), zone))
        for _ in range(2):  # a value may name another ($CLUSTER_ARGUMENTS inside quotes)
            text = re.sub(r"\$\{(\w+)\}|\$(\w+)", lambda m: values.get(m[1] or m[2], ""), text)
        text = text.replace("--script-dir=/tmp", f"--script-dir={folder}")  # the goldens' dir
        words = shlex.split(text.split(" | ")[0])[1:]
        if not self.read_only(words):
            words.append("--dry-run")
        return words

    @staticmethod
    def read_only(words: list[str]) -> bool:
        plain = [w for w in words if not w.startswith("-")]
        return tuple(plain[:1]) in READ_ONLY or tuple(plain[:2]) in READ_ONLY


def configured_zone(argv: list[str]) -> str:
    """The zone an XPK user of this command has configured (`gcloud config set compute/zone`):
    one that offers the family the command names, else us-east5-b."""
    from xcli.catalog import lookup
    from xcli.catalog.zones import offered_zones
    from xcli.errors import UserError

    for i, word in enumerate(argv):
        flag, eq, value = word.strip("'\"").partition("=")
        if flag in ("--tpu-type", "--device-type"):
            value = value if eq else (argv[i + 1] if i + 1 < len(argv) else "")
            try:
                offered = offered_zones(lookup(value).family)
            except UserError:
                return "us-east5-b"
            return "us-east5-b" if not offered or "us-east5-b" in offered else offered[0]
    return "us-east5-b"


def corpus() -> tuple[str, list[Command]]:
    doc = json.loads(CORPUS.read_text(encoding="utf-8"))
    return doc["commit"], [Command(c["source"], c["command"]) for c in doc["commands"]]


# The user's values for the placeholders of XPK's examples/storage/*-manifest-attach.yaml
# (IP_ADDRESSES before IP_ADDRESS: one holds the other)
MANIFEST_VALUES = {
    "STORAGE_SIZE": "36000Gi", "PROJECT_ID": "my-project", "ZONE": "us-east5-b",
    "INSTANCE_NAME": "test-storage", "IP_ADDRESSES": "10.90.0.4,10.90.0.5",
    "IP_ADDRESS": "10.90.0.4", "FILE_SYSTEM": "lfs", "NETWORK_NAME": "default",
}  # fmt: skip
EXAMPLES = DATA / "upstream" / "AI-Hypercomputer" / "xpk" / "examples" / "storage"


def user_manifest(kind: str) -> str:
    """XPK's example PV and PVC of `kind` with its placeholders filled in, as the user's file."""
    text = (EXAMPLES / f"{kind}-manifest-attach.yaml").read_text(encoding="utf-8")
    for key, value in MANIFEST_VALUES.items():
        text = text.replace(key, value)
    return text


def make_folder(root: Path) -> Path:
    """The files XPK's commands name, in the folder they run from: the scripts, and the user's
    PV and PVC files that `storage attach --manifest` names (docs/usage/storage.md:96,120,149
    name XPK's examples/storage/ files, filled in; flex_lustre_recipe.md:206-245 has the user
    `echo` the Lustre one into ./lustre-manifest-attach.yaml)."""
    root.mkdir(parents=True, exist_ok=True)
    for name in ("test.sh", "custom_script.sh", "workload.sh", "hello"):
        (root / name).write_text("echo hello\n")
    for name in ("fake_training.py", "main.py", "train.py"):
        (root / name).write_text("print('train')\n")
    examples = root / "examples" / "storage"
    examples.mkdir(parents=True, exist_ok=True)
    for kind in ("lustre", "parallelstore", "pd"):
        (examples / f"{kind}-manifest-attach.yaml").write_text(user_manifest(kind))
    (root / "lustre-manifest-attach.yaml").write_text(user_manifest("lustre"))
    return root
