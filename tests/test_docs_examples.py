"""Every command example in README.md and docs/*.md runs as written, or is listed here with why.

Examples are the lines of fenced shell blocks that start with `xcli ` or `$ xcli ` (with their
`\\` continuation lines, and the `export`s before them in the same block). Each documentation file
runs in its own sandbox (HOME, XCLI_HOME, a working folder holding the files the text says you
have), as a subprocess of the installed `xcli` through bash, in the file's order, and must exit
0. Dry-runs and the catalogue need nothing; local-provider examples create real emulated
clusters, which the sandbox deletes afterwards. What needs a live cloud is in SKIP, each with
its reason; an entry that matches no example fails, so the list cannot go stale. Any network
access is pointed at a closed local port, so a live call that slipped through fails at once
instead of reaching Google.
"""

from __future__ import annotations

import importlib
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
DOCS = ["README.md", *sorted(f"docs/{p.name}" for p in (REPO / "docs").glob("*.md"))]
SHELL_FENCES = ("", "bash", "sh", "shell", "console")

LIVE_GKE = "needs a live GKE cluster (reads it, or creates or changes it through the GKE API)"
LIVE_QR = "creates, waits for or reads Cloud TPU queued resources (a live Google Cloud project)"
JAX_EXAMPLE = (
    "needs JAX in the workers' python (the one running xcli); "
    "tests/providers/local/test_jax_examples.py runs it on a local cluster when JAX is installed"
)
ELIDED = "elided (`...`): the flags are those of the example above it"

RUNNING = (
    "needs a running workload whose programs serve the profiler (or are stuck); "
    "tests/workload/profile/ runs profile and stacks on the emulator, tests/cli/test_ssh_local.py "
    "scp --worker=all"
)

# "FILE: COMMAND" -> why it does not run here
SKIP = {
    "docs/profile.md: xcli workload profile train-1 --cluster demo              # an XProf "
    "trace of every host": RUNNING,
    "docs/profile.md: xcli workload stacks train-1 --cluster demo               # py-spy: where "
    "every host is now": RUNNING,
    "docs/profile.md: xcli scp --cluster demo --worker=all -r :~/job/logs ./logs  # files from "
    "every worker": RUNNING,
    "docs/profile.md: xcli workload stragglers train-1 --cluster demo": "needs a workload's "
    "arrival marks; tests/workload/stragglers/ runs it on the emulator",
    "docs/profile.md: xcli workload profile train-1 --cluster demo --hosts stragglers "
    "--duration 5s": RUNNING,
    "docs/profile.md: xcli workload profile train-1 --cluster demo --hosts s3/w1,s7/w2,s0/w0 "
    "--duration 5s": RUNNING,
    "README.md: xcli cluster create --provider queued-resource --cluster qr --tpu-type "
    "v5litepod-16 --spot": LIVE_QR,
    "README.md: xcli ssh --provider queued-resource --cluster qr --worker=all --command "
    "'python3 train.py'": "reaches the workers of a live queued resource",
    "README.md: xcli cluster create --cluster demo --tpu-type v6e-256 --spot --terraform deploy"
    "   # docs/terraform.md": "writes a Terraform folder and reads the project's state "
    "(live Google Cloud project; docs/terraform.md)",
    "docs/queued-resource.md: xcli cluster create --provider queued-resource --cluster lite "
    "--tpu-type v5litepod-16 --spot": LIVE_QR,
    "docs/queued-resource.md: xcli cluster create --provider queued-resource --cluster flex "
    "--tpu-type v6e-256 --num-slices 4 --flex-start --max-run-duration 6h --internal-ips "
    "--zone us-east5-a": LIVE_QR,
    "docs/queued-resource.md: xcli cluster create --provider queued-resource --cluster resv "
    "--tpu-type v5p-128 --reservation my-res": LIVE_QR,
    "docs/queued-resource.md: xcli cluster create --provider queued-resource --cluster boot "
    "--tpu-type v4-8 --on-demand --metadata-from-file startup-script=setup.sh": LIVE_QR,
    "docs/queued-resource.md: xcli cluster create --provider queued-resource --cluster guar "
    "--tpu-type v6e-8 --guaranteed --min-duration 2h --async": LIVE_QR,
    "docs/queued-resource.md: xcli cluster create --provider queued-resource --cluster login "
    "--tpu-type v5litepod-16 --spot --os-login": LIVE_QR,
    "docs/queued-resource.md: xcli cluster wait --cluster guar --timeout 12h": LIVE_QR,
    "docs/queued-resource.md: xcli cluster list --provider queued-resource": LIVE_QR,
    "docs/queued-resource.md: xcli cluster describe --provider queued-resource --cluster guar": (
        LIVE_QR
    ),
    "docs/queued-resource.md: xcli cluster delete --provider queued-resource --cluster guar "
    "--yes": LIVE_QR,
    "docs/ssh.md: xcli ssh --cluster demo --worker=2                  # an interactive shell on "
    "worker 2": "opens an interactive shell: needs a person at a terminal",
    "docs/local-provider.md: xcli ssh --provider local --cluster demo --worker=all --command "
    "'python3 -c \"import jax; print(jax.device_count())\"'": JAX_EXAMPLE,
    "docs/local-provider.md: xcli ssh --provider local --cluster demo --worker=all --command "
    "'python3 -c \"import jax; jax.distributed.initialize(); print(jax.device_count())\"'": (
        JAX_EXAMPLE
    ),
    "docs/local-provider.md: xcli ssh --provider local --cluster demo --worker=all --command "
    "'python3 matmul.py'": JAX_EXAMPLE,
    "docs/local-provider.md: xcli workload create --provider local --cluster demo --workload "
    "hello --num-slices 1 --command 'python3 matmul.py'": JAX_EXAMPLE,
    "docs/workload.md: xcli workload create --cluster demo --workload train-1 --docker-image "
    "us-docker.pkg.dev/my-project/repo/trainer:1 --command 'python3 train.py' --max-restarts 3 "
    "--env WANDB_MODE=offline": LIVE_GKE,
    "docs/workload.md: xcli workload create ... --tpu-type v6e-256 --num-slices 2 --dry-run "
    "--output json": ELIDED,
    "docs/workload.md: xcli workload create ... --cluster-metadata meta.yaml --dry-run   # "
    "accelerator: v5p-128": ELIDED,
    "docs/workload.md: xcli workload list --cluster demo": LIVE_GKE,
    "docs/workload.md: xcli workload status running-1 --cluster demo": LIVE_GKE,
    'docs/workload.md: xcli workload create --cluster demo --workload "ci-$BUILD" ...': ELIDED,
    'docs/workload.md: xcli workload wait "ci-$BUILD" --cluster demo --timeout 2h || xcli '
    'workload status "ci-$BUILD" --cluster demo': LIVE_GKE,
    "docs/storage.md: xcli workload create --cluster demo --workload train-1 --docker-image "
    "us-docker.pkg.dev/my-project/repo/trainer:1 --command 'python3 train.py' --storage "
    "data,ckpt --checkpoint-dir /ckpt/run-1 --compilation-cache /ckpt/jax-cache": LIVE_GKE,
    "docs/storage.md: xcli cluster preload-image us-docker.pkg.dev/my-project/repo/trainer:1 "
    "--cluster demo": LIVE_GKE,
    "docs/teams.md: xcli team list --cluster demo": LIVE_GKE,
    "docs/teams.md: xcli workload list --cluster demo --namespace research": LIVE_GKE,
    "docs/teams.md: xcli workload status train-1 --cluster demo --namespace research": LIVE_GKE,
    "docs/teams.md: xcli team delete --cluster demo --team research": LIVE_GKE,
    "docs/teams.md: xcli cluster adapt --cluster tk-v6e": LIVE_GKE,
    "docs/goodput.md: xcli workload goodput train-1 --cluster demo": LIVE_GKE,
    "docs/goodput.md: xcli workload goodput train-1 --cluster demo --output json | jq .badput": (
        LIVE_GKE
    ),
    "docs/gpu-workloads.md: xcli cluster test-network --cluster gpus --project my-project "
    "--zone us-east5-b": LIVE_GKE,
    "docs/gpu-workloads.md: xcli cluster test-network --cluster gpus --nodes 4 --min-fraction "
    "0.8 --output json": LIVE_GKE,
    "docs/storage-command.md: xcli storage list --cluster demo -o yaml": LIVE_GKE,
    "docs/pathways.md: xcli workload connect nb-1 --cluster pw --project my-project "
    "--zone us-east5-b": "forwards a port from the head pod of a live Pathways workload",
}

# What a file's text says exists before its examples (not examples themselves).
DEMO = "xcli cluster create --provider local --cluster demo --tpu-type v5litepod-16 --num-slices 2"
PRELUDE = {"docs/ssh.md": [DEMO], "docs/workload.md": [DEMO]}

# The files the examples' text says you have in your folder.
FILES = {
    "train.py": "import os\nprint('training on worker', os.environ.get('TPU_WORKER_ID'))\n",
    "data.json": "{}\n",
    "configs/run.yaml": "steps: 10\n",
    # the records `xcli storage attach` keeps (xcli/plan/storage.py), for docs/storage.md
    "storage-data.json": '{"name": "data", "type": "gcsfuse", "source": "my-dataset", '
    '"mount_point": "/data", "readonly": true, "pvc": "data-pvc"}\n',
    "storage-ckpt.json": '{"name": "ckpt", "type": "gcsfuse", "source": "my-ckpt", '
    '"mount_point": "/ckpt", "pvc": "ckpt-pvc"}\n',
    # docs/storage-command.md's --manifest: the PV and PVC XPK's flex_lustre_recipe.md has you
    # write (l.206-245 at 367c838253be), filled in
    "lustre-manifest-attach.yaml": (
        "apiVersion: v1\nkind: PersistentVolume\nmetadata: {name: xpk-lustre-pv}\nspec:\n"
        '  storageClassName: ""\n  capacity: {storage: 18000Gi}\n'
        "  accessModes: [ReadWriteMany]\n  persistentVolumeReclaimPolicy: Retain\n"
        "  claimRef: {namespace: default, name: xpk-lustre-pvc}\n"
        "  csi:\n    driver: lustre.csi.storage.gke.io\n"
        "    volumeHandle: my-project/us-east5-b/scratch\n"
        "    volumeAttributes: {ip: 10.90.0.4, filesystem: lfs}\n---\n"
        "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: xpk-lustre-pvc}\n"
        '  \nspec:\n  accessModes: [ReadWriteMany]\n  storageClassName: ""\n'
        "  volumeName: xpk-lustre-pv\n  resources: {requests: {storage: 18000Gi}}\n"
    ),
}


@dataclass(frozen=True)
class Example:
    file: str
    line: int
    command: str
    exports: tuple[str, ...] = ()

    @property
    def key(self) -> str:
        return f"{self.file}: {self.command}"


def examples(file: str) -> list[Example]:
    lines = (REPO / file).read_text(encoding="utf-8").splitlines()
    found: list[Example] = []
    fence: str | None = None
    exports: list[str] = []
    i = 0
    while i < len(lines):
        opening = re.match(r"^\s*```(\w*)", lines[i])
        if opening:
            fence = None if fence is not None else opening.group(1)
            exports = []
        elif fence in SHELL_FENCES:
            text = lines[i].strip().removeprefix("$ ")
            if text.startswith("export "):
                exports.append(text)
            elif text.startswith("xcli "):
                start = i + 1
                while text.endswith("\\") and i + 1 < len(lines):
                    i += 1
                    text = text[:-1].rstrip() + " " + lines[i].strip()
                found.append(Example(file, start, text, tuple(exports)))
        i += 1
    return found


def _python_block(file: str) -> dict[str, str]:
    """The doc's first Python program (the JAX example), saved as the text says: the name its
    first line gives (`# matmul.py`), else prog.py."""
    text = (REPO / file).read_text(encoding="utf-8")
    match = re.search(r"```python\n(.*?)```", text, re.S)
    if not match:
        return {}
    named = re.match(r"# (\S+\.py)\n", match.group(1))
    return {named.group(1) if named else "prog.py": match.group(1)}


def _xcli_bin() -> Path:
    path = Path(sys.executable).parent / "xcli"
    assert path.exists(), f"the installed xcli is not beside {sys.executable}"
    return path.parent


def _sandbox_env(root: Path) -> dict[str, str]:
    keep = ("LANG", "LC_ALL", "TERM", "SHELL", "USER", "LOGNAME", "TMPDIR", "VIRTUAL_ENV")
    env = {k: v for k, v in os.environ.items() if k in keep}
    closed = "http://127.0.0.1:9"  # the discard port: nothing listens, a live call fails fast
    env.update(
        PATH=f"{_xcli_bin()}{os.pathsep}{os.environ.get('PATH', '/usr/bin:/bin')}",
        HOME=str(root / "home"),
        XDG_CONFIG_HOME=str(root / "home" / ".config"),
        XCLI_HOME=str(root / "state"),
        CLOUDSDK_CONFIG=str(root / "home" / ".config" / "gcloud"),
        HTTPS_PROXY=closed,
        HTTP_PROXY=closed,
        https_proxy=closed,
        http_proxy=closed,
        GCE_METADATA_HOST="127.0.0.1:9",
        GCE_METADATA_IP="127.0.0.1:9",
        NO_COLOR="1",
    )
    return env


def _run(command: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-c", f"set -eo pipefail\n{command}"],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=300,
    )


def _delete_local_clusters(cwd: Path, env: dict[str, str]) -> list[str]:
    listed = _run("xcli cluster list --provider local --output json", cwd, env)
    names = [row["name"] for row in json.loads(listed.stdout or "[]")]
    for name in names:
        _run(f"xcli cluster delete --provider local --cluster {name} --yes", cwd, env)
    return names


def _runnable(file: str) -> list[Example]:
    return [e for e in examples(file) if e.key not in SKIP]


# files whose every example needs a live cloud (queued-resource.md) or that have none are left
# out here; test_every_skipped_example_exists_and_says_why covers their examples
@pytest.mark.parametrize("file", [f for f in DOCS if _runnable(f)])
def test_examples_run_as_written(file: str, tmp_path: Path) -> None:
    runnable = _runnable(file)
    work = tmp_path / "work"
    work.mkdir()
    root = tmp_path / "sandbox"
    (root / "home").mkdir(parents=True)
    for name, content in {**FILES, **_python_block(file)}.items():
        (work / name).parent.mkdir(parents=True, exist_ok=True)
        (work / name).write_text(content, encoding="utf-8")
    env = _sandbox_env(root)
    try:
        for command in PRELUDE.get(file, []):
            done = _run(command, work, env)
            assert done.returncode == 0, f"prelude {command}\n{done.stdout}{done.stderr}"
        for example in runnable:
            script = "\n".join([*example.exports, example.command])
            done = _run(script, work, env)
            assert done.returncode == 0, (
                f"{file}:{example.line} exited {done.returncode}: {example.command}\n"
                f"stdout:\n{done.stdout[-3000:]}\nstderr:\n{done.stderr[-3000:]}"
            )
    finally:
        _delete_local_clusters(work, env)
    assert _delete_local_clusters(work, env) == []  # nothing left running


def test_every_skipped_example_exists_and_says_why() -> None:
    keys = {e.key for file in DOCS for e in examples(file)}
    stale = [key for key in SKIP if key not in keys]
    assert stale == [], "SKIP entries that match no example any more"
    assert all(reason.strip() for reason in SKIP.values())


def test_the_docs_have_examples_that_run() -> None:
    everything = [e for file in DOCS for e in examples(file)]
    runnable = [e for e in everything if e.key not in SKIP]
    assert len(everything) > 30 and len(runnable) > 15
    assert any("--provider local" in e.command for e in runnable)
    assert any("--dry-run" in e.command for e in runnable)


def test_dry_run_doc_lists_every_step_kind() -> None:
    from xcli.plan.model import Step

    for module in (
        "steps",
        "gke.kube_steps",
        "tpu_steps",
        "fanout",
        "gke.inspect_steps",
        "doctor_steps",
        "profile",
        "stacks",
    ):
        importlib.import_module(f"xcli.plan.{module}")
    for module in (
        "xcli.workload.vm.plan",
        "xcli.workload.jobset.plan",
        "xcli.terraform.plan",
        "xcli.workload.team.plan",
        "xcli.providers.gke.adapt",
    ):
        importlib.import_module(module)

    def kinds(cls: type[Step]) -> set[str]:
        below = {k for sub in cls.__subclasses__() for k in kinds(sub)}
        return below | ({cls.kind} if cls is not Step else set())

    table = (REPO / "docs" / "dry-run.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"^\| `([a-z0-9_]+)` \|", table, re.M))
    assert kinds(Step) <= listed, kinds(Step) - listed
