"""`xcli workload create --base-docker-image --script-dir` end to end: the talk's command as a
dry-run, then live against a real registry on loopback and an in-memory GKE cluster; the flags'
refusals before anything is sent."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import requests

from tests.support.registry import LocalRegistry, push_base, registry
from tests.support.workload_cluster import JOBSETS, WHERE, Cluster, cluster, set_up

__all__ = ["cluster", "registry"]  # the fixtures

TALK = [
    "workload", "create", *WHERE, "--workload", "maxtext-1b-1200",
    "--tpu-type=v6e-256", "--command", "python3 train.py",
]  # fmt: skip


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    src = tmp_path / "maxtext"
    (src / "configs").mkdir(parents=True)
    (src / "train.py").write_text("print('train')\n")
    (src / "configs" / "base.yml").write_text("steps: 10\n")
    (src / "notes.tmp").write_text("scratch\n")
    (src / ".dockerignore").write_text("*.tmp\n")
    monkeypatch.setenv("XCLI_IMAGE_CACHE", str(tmp_path / "cache"))
    monkeypatch.chdir(src)  # --script-dir defaults to the current folder
    return src


def _images(plan: list[dict[str, object]]) -> list[str]:
    (jobset,) = [s for s in plan if s["kind"] == "k8s_apply"]
    text = json.dumps(jobset["manifest"])
    return sorted(set(re.findall(r'"image": "([^"]+)"', text)))


def test_the_talks_command_dry_run_prints_the_build_and_the_jobset(
    cluster: Cluster, folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = [*TALK, "--base-docker-image", "maxtext_base_image", "--num-slices", "1"]
    code, out, err = cluster.run([*args, "--dry-run", "--output", "json"], capsys)
    assert code == 0, err
    plan = json.loads(out)["plan"]
    ids = [s["id"] for s in plan[:4]]
    assert ids == ["image-repository", "image-reader", "image-base", "build"]
    assert plan[0]["repository"] == "projects/my-proj/locations/us-east5/repositories/xcli"
    # the nodes' default service account may pull from it (issue 32 item 4)
    assert plan[1]["repository"] == plan[0]["repository"]
    assert plan[1]["role"] == "roles/artifactregistry.reader"
    assert plan[1]["member"] == (
        "serviceAccount:${image-reader.project_number}-compute@developer.gserviceaccount.com"
    )
    assert plan[1]["requests"][0]["url"].endswith("/v3/projects/my-proj")
    assert "image-reader" in plan[3]["after"]  # the workload runs only after the grant
    assert plan[2]["image"] == "index.docker.io/library/maxtext_base_image:latest"
    assert plan[3]["layers"][0]["files"] == 3  # train.py, configs/base.yml, .dockerignore
    (image,) = _images(plan)
    assert image.startswith("us-east5-docker.pkg.dev/my-proj/xcli/")
    assert image.endswith("-runner@${build.digest}")
    assert cluster.fake.requests == []  # nothing read, nothing sent, no credentials
    assert "left out by .dockerignore: 1 paths" in err


def test_secrets_in_the_folder_are_left_out_and_named_in_the_dry_run(
    cluster: Cluster, folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (folder / ".git").mkdir()
    (folder / ".git" / "config").write_text("url = https://me:ghp_token@github.com/o/r\n")
    (folder / ".env").write_text("WANDB_API_KEY=abc\n")
    args = [*TALK, "--base-docker-image", "python:3.10", "--num-slices", "1", "--dry-run"]
    code, out, err = cluster.run([*args, "--output", "json"], capsys)
    assert code == 0, err
    push = next(s for s in json.loads(out)["plan"] if s["id"] == "build")
    assert [x["path"] for x in push["left_out"]] == [".env", ".git"]
    assert push["layers"][0]["files"] == 3  # the same three as without them
    assert "left out by default (secret, version-control or virtual-environment paths, 2):" in err
    assert "  .git: version control (.git/config can hold a token)" in err
    code, out, err = cluster.run([*args, "--output", "json", "--script-include", ".env"], capsys)
    push = next(s for s in json.loads(out)["plan"] if s["id"] == "build")
    assert code == 0 and [x["path"] for x in push["left_out"]] == [".git"]
    assert push["layers"][0]["files"] == 4


def test_live_it_pushes_then_creates_the_jobset_by_digest(
    cluster: Cluster,
    folder: Path,
    registry: LocalRegistry,
    capsys: pytest.CaptureFixture[str],
) -> None:
    set_up(cluster.fake)
    push_base(registry.host, "library/maxtext", "base")
    args = [
        *TALK, "--base-docker-image", f"{registry.host}/library/maxtext:base",
        "--image-repository", f"{registry.host}/team", "--docker-name", "trainer",
        "--docker-image-pull-secret", "regcred",
    ]  # fmt: skip
    code, _out, err = cluster.run(args, capsys)
    assert code == 0, err
    (patch,) = cluster.fake.patches()
    assert patch.url.path == f"{JOBSETS}/maxtext-1b-1200"
    body = json.loads(patch.content)
    pod = body["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]
    (container,) = [c for c in pod["containers"] if c["name"] == "trainer"]
    repo, digest = container["image"].split("@")
    assert repo.startswith(f"{registry.host}/team/") and repo.endswith("-runner")
    assert pod["imagePullSecrets"] == [{"name": "regcred"}]
    name = repo.split("/", 1)[1]
    manifest = requests.get(
        f"http://{registry.host}/v2/{name}/manifests/{digest}",
        headers={"Accept": "application/vnd.oci.image.manifest.v1+json"},
        timeout=10,
    )
    assert manifest.status_code == 200
    assert manifest.headers["Docker-Content-Digest"] == digest


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--docker-image", "img:1", "--base-docker-image", "python:3.10"],
         "error: --docker-image excludes --base-docker-image and --script-dir"),
        (["--base-docker-image", "Bad Image"],
         "error: invalid --base-docker-image reference 'Bad Image': "),
        (["--script-dir", "/nonexistent/folder", "--num-slices", "1"],
         "error: --script-dir /nonexistent/folder is not a folder"),
        (["--script-include", "!x", "--base-docker-image", "python:3.10"],
         "error: --script-include '!x' is not a path pattern"),
        (["--docker-image", "img:1", "--script-include", ".env"],
         "error: --script-include needs a folder to pack"),
    ],
)  # fmt: skip
def test_bad_flags_are_one_line_before_anything_is_sent(
    cluster: Cluster,
    folder: Path,
    extra: list[str],
    message: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = cluster.run([*TALK, "--num-slices", "1", *extra, "--dry-run"], capsys)
    assert code == 1 and out == ""
    lines = err.splitlines()
    assert lines[0].startswith(message) and lines[1].startswith("hint: ")
    assert cluster.fake.requests == []


def test_vm_style_clusters_refuse_a_base_image(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from xcli.cli.errors import run_guarded
    from xcli.cli.main import cli

    args = [
        "workload", "create", "--provider", "local", "--cluster", "demo", "--workload", "w",
        "--command", "true", "--base-docker-image", "python:3.10",
    ]  # fmt: skip
    code = run_guarded(cli, args, debug=False)
    out, err = capsys.readouterr()
    assert code == 1 and out == ""
    assert err.splitlines()[0] == (
        "error: --provider local runs the command on the VMs themselves: there is no "
        "container to build an image for"
    )
    assert "--script-dir DIR alone copies DIR to every worker" in err.splitlines()[1]


@pytest.mark.parametrize(
    ("base", "message"),
    [
        ("library/nothing:here", "FAILED: base image {host}/library/nothing:here not found (404 "
         "MANIFEST_UNKNOWN) (hint: "),
        ("library/armonly:1", "FAILED: base image {host}/library/armonly:1 has no linux/amd64 "
         "image (it has linux/arm64) (hint: "),
    ],
)  # fmt: skip
def test_a_base_that_is_missing_or_of_another_platform_pushes_and_creates_nothing(
    cluster: Cluster,
    folder: Path,
    registry: LocalRegistry,
    base: str,
    message: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    set_up(cluster.fake)
    push_base(registry.host, "library/armonly", "1", arches=("arm64",))
    args = [
        *TALK, "--base-docker-image", f"{registry.host}/{base}",
        "--image-repository", f"{registry.host}/refused",
    ]  # fmt: skip
    code, _out, err = cluster.run(args, capsys)
    assert code == 1, err
    # the read of the base fails first (one line, with its hint); the push and the JobSet
    # are skipped
    (failed,) = [line for line in err.splitlines() if "[image-base] FAILED" in line]
    assert message.format(host=registry.host) in failed
    assert "[build] skipped" in err and "[jobset] skipped" in err
    assert cluster.fake.patches() == []
    tags = requests.get(f"http://{registry.host}/v2/_catalog", timeout=10).json()
    assert not any(r.startswith("refused/") for r in tags["repositories"])


def test_verbose_lists_what_dockerignore_leaves_out_and_the_manifest_file_matches(
    cluster: Cluster, folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_file = tmp_path / "jobset.yaml"
    args = [
        *TALK, "--num-slices", "1", "--script-dir", str(folder), "--docker-name", "trainer",
        "--output-manifest-file", str(out_file), "-v", "--dry-run", "--output", "json",
    ]  # fmt: skip
    code, out, err = cluster.run(args, capsys)
    assert code == 0, err
    assert "  notes.tmp" in err.splitlines()
    import yaml

    (written,) = list(yaml.safe_load_all(out_file.read_text()))
    (jobset,) = [s for s in json.loads(out)["plan"] if s["kind"] == "k8s_apply"]
    assert written == jobset["manifest"]
    assert "trainer" in json.dumps(written)
    base = next(s for s in json.loads(out)["plan"] if s["kind"] == "image_base")
    assert base["image"] == "index.docker.io/library/python:3.10"  # XPK's default base


def test_queued_resource_refuses_a_script_dir_it_could_not_mount(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from xcli.cli.errors import run_guarded
    from xcli.cli.main import cli

    args = [
        "workload", "create", "--provider", "queued-resource", "--cluster", "qr",
        "--workload", "w", "--command", "true", "--script-dir", str(folder),
        "--project", "my-proj", "--zone", "us-east5-b",
    ]  # fmt: skip
    code = run_guarded(cli, args, debug=False)
    out, err = capsys.readouterr()
    assert code == 1 and out == ""
    assert err.splitlines()[0] == (
        "error: --provider queued-resource runs the command in a container on each VM, where "
        "a copied --script-dir is not mounted"
    )


# --- issue 36: the talk's `--base-docker-image maxtext_base_image`, read from the local engine


def _engine_image() -> Any:
    from tests.support.engine import LocalImage, rootfs_tar

    layers = [
        rootfs_tar({"usr/bin/marker": b"base layer one\n" * 50}),
        rootfs_tar({"opt/maxtext/requirements.txt": b"jax\n" * 100}),
    ]
    return LocalImage("maxtext_base_image:latest", layers)


@pytest.mark.parametrize("form", ["legacy", "oci", "podman"])
def test_the_talks_base_is_read_from_the_local_engine_plan_then_live(
    cluster: Cluster,
    folder: Path,
    registry: LocalRegistry,
    form: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    import gzip

    from tests.support.engine import serve, sha

    image = _engine_image()
    engine_dir = tmp_path / "eng"
    engine_dir.mkdir()
    for engine in serve(engine_dir, image, form=form):
        monkeypatch.setenv("DOCKER_HOST", f"unix://{engine.socket}")
        args = [*TALK, "--base-docker-image", "maxtext_base_image", "--num-slices", "1",
                "--image-repository", f"{registry.host}/team"]  # fmt: skip
        code, out, err = cluster.run([*args, "--dry-run"], capsys)
        assert code == 0, err
        assert (
            f"[image-base] read base image maxtext_base_image from the local engine at "
            f"unix://{engine.socket} ({image.id[:19]}, 2 layers, linux/amd64)" in out
        )
        assert "registry-1.docker.io" not in out and "/images/maxtext_base_image/get" in out
        assert engine.requests == ["GET /_ping", "GET /v1.44/images/maxtext_base_image/json"]
        assert cluster.fake.requests == []  # a dry-run reads no cluster

        set_up(cluster.fake)
        code, _out, err = cluster.run(args, capsys)
        assert code == 0, err
        assert "GET /v1.44/images/maxtext_base_image/get" in engine.requests
        (patch,) = cluster.fake.patches()
        pod = json.loads(patch.content)["spec"]["replicatedJobs"][0]["template"]["spec"]
        (container,) = pod["template"]["spec"]["containers"]
        repo, digest = container["image"].split("@")
        name = repo.split("/", 1)[1]
        manifest = requests.get(
            f"http://{registry.host}/v2/{name}/manifests/{digest}",
            headers={"Accept": "application/vnd.oci.image.manifest.v1+json"},
            timeout=10,
        ).json()
        config = requests.get(
            f"http://{registry.host}/v2/{name}/blobs/{manifest['config']['digest']}", timeout=10
        ).json()
        # the engine's two layers first (as the engine holds them: diff_ids kept), then the folder's
        assert config["rootfs"]["diff_ids"][:2] == [sha(x) for x in image.layers]
        assert len(manifest["layers"]) == len(config["rootfs"]["diff_ids"]) == 3
        assert config["config"]["Env"] == ["PATH=/usr/bin", "BASE=local"]
        assert config["config"]["WorkingDir"] == "/app"
        for layer, plain in zip(manifest["layers"][:2], image.layers, strict=True):
            blob = requests.get(
                f"http://{registry.host}/v2/{name}/blobs/{layer['digest']}", timeout=10
            ).content
            assert gzip.decompress(blob) == plain
        # again: the same image (digest), the export is not asked for a second time
        before = engine.requests.count("GET /v1.44/images/maxtext_base_image/get")
        code, _out, err = cluster.run([*args, "--replace"], capsys)
        assert code == 0, err
        assert engine.requests.count("GET /v1.44/images/maxtext_base_image/get") == before
        last = json.loads(cluster.fake.patches()[-1].content)
        again = last["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]
        assert again["containers"][0]["image"] == container["image"]


def test_with_no_engine_the_plan_says_docker_hub_and_the_run_stops_before_any_push(
    cluster: Cluster,
    folder: Path,
    registry: LocalRegistry,
    capsys: pytest.CaptureFixture[str],
) -> None:
    import responses

    args = [*TALK, "--base-docker-image", "maxtext_base_image", "--num-slices", "1",
            "--image-repository", f"{registry.host}/nohub"]  # fmt: skip
    code, out, err = cluster.run([*args, "--dry-run"], capsys)
    assert code == 0, err
    assert (
        "[image-base] read base image index.docker.io/library/maxtext_base_image:latest "
        "(linux/amd64) from Docker Hub: no local Docker Engine or Podman socket answered"
    ) in out
    assert "when_missing: a name without a registry is Docker Hub's" in out
    set_up(cluster.fake)
    hub = "https://registry-1.docker.io/v2/library/maxtext_base_image/manifests/latest"
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        mock.add_passthru(f"http://{registry.host}")
        # Docker Hub: anonymous token, then 401 for a repository it does not have
        challenge = 'Bearer realm="https://auth.docker.io/token",service="registry.docker.io"'
        mock.add("HEAD", hub, status=401, headers={"WWW-Authenticate": challenge})
        mock.add("GET", hub, status=401, headers={"WWW-Authenticate": challenge},
                 json={"errors": [{"code": "UNAUTHORIZED"}]})  # fmt: skip
        mock.add("GET", "https://auth.docker.io/token", json={"token": "anon"})
        code, _out, err = cluster.run(args, capsys)
        assert not [c for c in mock.calls if "127.0.0.1" in c.request.url and
                    c.request.method in ("POST", "PUT", "PATCH")]  # fmt: skip
    assert code == 1, err
    (failed,) = [line for line in err.splitlines() if "[image-base] FAILED" in line]
    assert "maxtext_base_image:latest is not on Docker Hub, or is private" in failed
    assert "run xcli where Docker or Podman holds it" in failed and "docker push" in failed
    assert "[build] skipped" in err and "[jobset] skipped" in err
    assert cluster.fake.patches() == []
    repos = requests.get(f"http://{registry.host}/v2/_catalog", timeout=10).json()
    assert not any(r.startswith("nohub/") for r in repos["repositories"])
