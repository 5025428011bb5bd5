"""`--script-dir` leaves out version-control data and the usual secret paths unless included
on purpose, names each with its reason, and refuses a packed file that is a key or a
credential (issue 37, Security)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from xcli.errors import UserError
from xcli.image import build, context
from xcli.image.layers import Store
from xcli.plan.model import Plan
from xcli.plan.render import plan_document

PEM = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk=\n-----END OPENSSH PRIVATE KEY-----\n"
SERVICE_ACCOUNT = json.dumps(
    {"type": "service_account", "project_id": "p", "private_key_id": "1", "private_key": "k"}
)
SECRETS = {
    ".git/config": '[remote "origin"]\n\turl = https://user:ghp_token@github.com/o/r\n',
    ".env": "WANDB_API_KEY=abc\n",
    "certs/server.pem": "certificate\n",
    "credentials.json": '{"installed": {"client_secret": "x"}}',
    ".ssh/id_ed25519": PEM,
    ".netrc": "machine example.com login me password pw\n",
    ".aws/credentials": "[default]\naws_secret_access_key = abc\n",
    ".docker/config.json": '{"auths": {"r.example": {"auth": "dXNlcjpwdw=="}}}',
    ".config/gcloud/application_default_credentials.json": '{"type": "authorized_user"}',
    "sub/keys/id_rsa": PEM,
}
LEFT_OUT = [
    ".aws", ".config/gcloud", ".docker", ".env", ".git", ".netrc", ".ssh",
    "certs/server.pem", "credentials.json", "sub/keys/id_rsa",
]  # fmt: skip


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    for path, text in {**SECRETS, "train.py": "print('train')\n", "sub/util.py": ""}.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return root


def _files(ctx: context.Context) -> list[str]:
    return sorted(e.path for e in ctx.entries if e.kind == "file")


def test_each_secret_kind_is_left_out_by_default_and_named(folder: Path) -> None:
    ctx = context.scan(folder)
    assert _files(ctx) == ["sub/util.py", "train.py"]
    assert sorted(path for path, _ in ctx.withheld) == LEFT_OUT
    reasons = dict(ctx.withheld)
    assert reasons[".git"].startswith("version control")
    assert "SSH" in reasons["sub/keys/id_rsa"]


def test_the_build_plan_names_what_was_left_out_and_why(folder: Path, tmp_path: Path) -> None:
    request = build.BuildRequest(folder, "python", "linux/amd64", "127.0.0.1:5000/t", "me")
    built = build.prepare(request, Store(tmp_path / "store"))
    document = plan_document(Plan("build", built.steps))
    push = next(s for s in document["plan"] if s["kind"] == "image_push")
    named = {x["path"]: x["why"] for x in push["left_out"]}
    assert sorted(named) == LEFT_OUT
    assert named[".env"] == (
        "environment file (usually secrets); pack it with --script-include .env"
    )
    tar_names = [n for layer in built.layers for n in _layer_names(tmp_path / "store", layer)]
    assert not [n for n in tar_names if any(s.split("/")[0] in n for s in (".git", ".env"))]


def _layer_names(store: Path, layer: object) -> list[str]:
    import gzip
    import io
    import tarfile

    digest = layer.digest  # type: ignore[attr-defined]
    data = gzip.decompress((store / "blobs" / "sha256" / digest[7:]).read_bytes())
    return tarfile.open(fileobj=io.BytesIO(data)).getnames()


def test_dockerignore_exception_or_the_flag_packs_one_on_purpose(folder: Path) -> None:
    (folder / ".dockerignore").write_text("!.env\n")
    (folder / ".aws" / "config").write_text("[default]\nregion = us-east-1\n")
    ctx = context.scan(folder, include=(".aws/config", "certs"))
    assert ".env" in _files(ctx) and "certs/server.pem" in _files(ctx)
    assert ".aws/config" in _files(ctx)  # the folder walked for the one file named in it
    assert ".aws/credentials" in dict(ctx.withheld)
    assert ".env" not in dict(ctx.withheld)


@pytest.mark.parametrize(
    ("name", "text", "what"),
    [
        ("notes.txt", PEM, "a private key"),
        ("config/sa.json", SERVICE_ACCOUNT, "a Google service-account key"),
        ("adc", '{\n  "type": "authorized_user",\n  "refresh_token": "1//x"\n}', "Google user"),
        ("deploy/boto.cfg", "[x]\nAWS_SECRET_ACCESS_KEY=abc\n", "AWS credentials"),
    ],
)
def test_a_file_that_looks_like_a_key_is_refused_by_name(
    tmp_path: Path, name: str, text: str, what: str
) -> None:
    (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / name).write_text(text)
    (tmp_path / "train.py").write_text("")
    with pytest.raises(UserError) as info:
        context.scan(tmp_path)
    assert info.value.message.startswith(f"{tmp_path / name} looks like {what}")
    assert f"--script-include {name}" in info.value.hint
    assert name in _files(context.scan(tmp_path, include=(name,)))


@pytest.mark.parametrize(
    ("head", "what"),
    [
        (b"\x80\x04\x95" + SERVICE_ACCOUNT.encode(), "a Google service-account key"),
        (
            b'\xff\xfe{ "type" :\t"authorized_user", "refresh_token": "1//x" }',
            "Google user credentials",
        ),
        (b"\xc3[default]\nAWS_Secret_Access_Key = abc\n", "AWS credentials"),
        # the Kelvin sign (U+212A) lowers to k, as configparser's option names are lowered
        (b"\xc3[default]\naws_secret_access_\xe2\x84\xaaey = abc\n", "AWS credentials"),
        # text cut inside a character at the sniffed length is not UTF-8 either
        ("[x]\naws_secret_access_key=1\n# \u00e9".encode()[:-1], "AWS credentials"),
        (bytes(range(256)) * 32, None),
        (b"\x00\x01 service_account private_key \xff", None),
    ],
)
def test_a_head_that_is_not_utf8_is_judged_on_its_bytes(head: bytes, what: str | None) -> None:
    from xcli.image import secrets

    assert secrets.looks_secret(head) == what


def test_the_left_out_reason_is_the_first_rule_that_names_any_prefix() -> None:
    """One expression for all rules gives what asking each rule in DEFAULTS' order gives."""
    from xcli.image import secrets

    def by_rule(path: str) -> str | None:
        parts = path.split("/")
        prefixes = ["/".join(parts[: i + 1]) for i in range(len(parts))]
        for pattern, why in secrets._RULES:
            if any(pattern.regex.match(p) for p in prefixes):
                return why
        return None

    paths = [
        "train.py", ".git", ".git/config", "a/.env", "a/.env.local", "x.pem", "k/x.key",
        "ks.p12", "ks.pfx", "a/id_rsa", "id_rsa.pub", ".ssh/config", "h/.netrc",
        ".git-credentials", ".pypirc", ".npmrc", ".aws/credentials", ".docker/config.json",
        ".kube/config", ".gnupg/x", "home/.config/gcloud/adc.json", ".config/other",
        "application_default_credentials.json", "c/credentials.json", "client_secret_1.json",
        "secrets.dev.yaml", ".env/.git", "certs/.ssh/id_rsa.pem", "env", "pem", "a.pem/b",
    ]  # fmt: skip
    assert [secrets.reason(p) for p in paths] == [by_rule(p) for p in paths]
    assert secrets.reason(".env/.git") == "version control (.git/config can hold a token)"
    assert secrets.reason("train.py") is None


def test_a_virtual_environment_is_left_out_unless_included(tmp_path: Path) -> None:
    """The README's set-up makes `.venv` in the folder a no-image `workload create` packs; its
    python is a link to this machine's interpreter, outside the folder, which is refused:
    issue 36 found the README's example failing on it. A folder holding pyvenv.cfg (PEP 405)
    is left out by default, named, under any name; --script-include packs it (and refuses
    the link, as before)."""
    import sys

    root = tmp_path / "proj"
    for venv in (".venv", "envs/py311"):
        (root / venv / "bin").mkdir(parents=True)
        (root / venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
        (root / venv / "bin" / "python3").symlink_to(sys.executable)
    (root / "train.py").write_text("print('train')\n")
    (root / "venvish").mkdir()  # a folder without pyvenv.cfg is packed as any other
    (root / "venvish" / "bin.py").write_text("")
    ctx = context.scan(root)
    assert _files(ctx) == ["train.py", "venvish/bin.py"]
    assert [path for path, _ in ctx.withheld] == [".venv", "envs/py311"]
    assert "virtual environment" in dict(ctx.withheld)[".venv"]
    with pytest.raises(UserError, match=r"\.venv/bin/python3 is a symlink to .*outside"):
        context.scan(root, include=(".venv",))
