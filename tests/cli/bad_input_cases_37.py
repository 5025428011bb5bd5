"""Issue 37's classes of bad input (Data and time, Values, Crashes, Checks after the network).

The same table shape as bad_input_cases.py, kept in its own module so that each class reads as
one block; `all_cases` there joins them.
"""

from __future__ import annotations

from pathlib import Path

from tests.cli.bad_input_cases import LOCAL, SETUPS, TPU, WL, Case, P

_WL = ("workload", "create", "--cluster", "c", *WL, *TPU, "--num-slices", "1", *P, "--dry-run")
_BUILD = (
    "workload",
    "create",
    "--cluster",
    "c",
    "--workload",
    "t",
    "--command",
    "true",
    *TPU,
    "--num-slices",
    "1",
    *P,
    "--dry-run",
)
_PW = (*_WL, "--pathways")
_CREATE = ("cluster", "create", "--cluster", "c", *TPU, "--spot", *P, "--dry-run")


def _empty() -> list[Case]:
    """An empty value given on the command line is an error, never "not given" (one mechanism:
    xcli/cli/line_checks.py)."""
    s = "empty"
    delete = ("workload", "delete", "--cluster", "c", "--state", "failed", "--yes", *P)
    return [
        Case("empty/older-than", s, (*delete, "--older-than", "")),
        Case("empty/older-than-equals", s, (*delete, "--older-than=")),
        Case("empty/older-than-spaces", s, (*delete, "--older-than", "  ")),
        Case("empty/script-dir", s, (*_BUILD, "--script-dir", "")),
        Case("empty/base-docker-image", s, (*_BUILD, "--base-docker-image", "")),
        Case("empty/image-repository", s, (*_BUILD, "--image-repository", "")),
        Case("empty/docker-name", s, (*_BUILD, "--docker-name", "")),
        Case("empty/pathways-version", s, (*_PW, "--pathways-version", "")),
        Case(
            "empty/pathways-cpu-machine-type",
            s,
            (*_CREATE, "--pathways", "--pathways-cpu-machine-type", ""),
        ),
        Case(
            "values/pathways-cpu-machine-type",
            s,
            (*_CREATE, "--pathways", "--pathways-cpu-machine-type", "Bad Type"),
        ),
        Case(
            "empty/archive",
            s,
            ("cluster", "inspect", "--cluster", "c", "--archive", "", *P, "--dry-run"),
        ),
        Case("empty/doctor-tpu-type", s, ("doctor", "--tpu-type", "", *P)),
        Case(
            "empty/cluster-wait-timeout",
            s,
            ("cluster", "wait", "--cluster", "q", "--timeout", "", *P),
        ),
        Case(
            "empty/workload-wait-timeout",
            s,
            ("workload", "wait", "t", "--cluster", "c", "--timeout", "", *P),
        ),
        Case("empty/logs-since", s, ("workload", "logs", "t", "--cluster", "c", "--since", "", *P)),
        Case(
            "empty/command",
            s,
            (
                "workload",
                "create",
                "--cluster",
                "c",
                "--workload",
                "t",
                "--docker-image",
                "img:1",
                "--command",
                "",
                *TPU,
                *P,
                "--dry-run",
            ),
        ),
        Case(
            "empty/zone", s, (*_CREATE[:-5], "--project", "bad-input-1", "--zone", "", "--dry-run")
        ),
        Case("empty/short-output", s, ("catalog", "list", "-o", "")),
        Case("empty/argument", s, ("config", "set", "project", "")),
        Case("empty/workload-name-argument", s, ("workload", "status", "", "--cluster", "c", *P)),
        Case("empty/ssh-command", s, ("ssh", "--cluster", "c", *LOCAL, "--command", "")),
    ]


def _numbers() -> list[Case]:
    """Numbers are digits 0-9: no '_' (PEP 515 lets int() read 1_0 as 10), no other digits."""
    s = "numbers"
    return [
        Case("num/num-slices-underscore", s, (*_CREATE, "--num-slices", "1_0")),
        Case(
            "num/base-port-underscore",
            s,
            (
                "cluster",
                "create",
                *LOCAL,
                "--cluster",
                "l",
                "--tpu-type",
                "v5litepod-8",
                "--base-port",
                "2_0000",
            ),
        ),
        Case(
            "num/num-nodes-underscore",
            s,
            (
                "cluster",
                "create",
                "--cluster",
                "c",
                "--device-type",
                "h100-80gb-8",
                "--spot",
                "--num-nodes",
                "1_6",
                *P,
                "--dry-run",
            ),
        ),
        Case(
            "num/local-port-underscore",
            s,
            ("workload", "connect", "t", "--cluster", "c", "--local-port", "2_9000", *P),
        ),
        Case(
            "num/log-lines-underscore",
            s,
            ("cluster", "inspect", "--cluster", "c", "--log-lines", "1_00", *P, "--dry-run"),
        ),
        Case("num/max-restarts-underscore", s, (*_WL, "--max-restarts", "1_0")),
        Case(
            "num/float-nan",
            s,
            ("cluster", "test-network", "--cluster", "c", "--min-fraction", "nan", *P, "--dry-run"),
        ),
    ]


def _folder(root: Path, ignore: str = "", odd_name: bool = False) -> None:
    app = root / "cwd" / "app"
    app.mkdir()
    (app / "train.py").write_text("print(1)\n", encoding="utf-8")
    if ignore:
        (app / ".dockerignore").write_text(ignore, encoding="utf-8")
    if odd_name:
        (app / b"caf\xe9.py".decode("utf-8", "surrogateescape")).write_text("x", encoding="utf-8")


_PATTERNS = {"z-a": "[z-a]", "empty": "[]", "bang": "[!]\n[]", "unclosed": "data/[", "lone": "!"}
SETUPS.update(
    {f"ignore-{k}": lambda r, p=p: _folder(r, ignore=f"*.pyc\n{p}\n") for k, p in _PATTERNS.items()}
)
SETUPS["odd-name"] = lambda r: _folder(r, odd_name=True)


def _crashes() -> list[Case]:
    """What gave exit 3: .dockerignore patterns, a name that is not UTF-8, ~unknownuser. The
    image build's refusal comes first and alone (no `packing DIR` line before it)."""
    s = "crashes"
    build = (*_BUILD, "--base-docker-image", "python:3.10", "--script-dir")
    return [
        *(
            Case(f"crash/dockerignore-{k}", s, (*build, "{cwd}/app"), setup=f"ignore-{k}")
            for k in _PATTERNS
        ),
        Case("crash/name-not-utf8", s, (*build, "{cwd}/app"), setup="odd-name"),
        Case("crash/unknown-user-home", s, (*build, "~no-such-user-xcli/app")),
    ]


def _dropped() -> list[Case]:
    """Options that were ignored without a word are refused (or get a note: every_option)."""
    s = "dropped"
    qr = ("workload", "create", "--provider", "queued-resource", "--cluster", "q", *WL, *P)
    local = ("workload", "create", *LOCAL, "--cluster", "l", "--workload", "t", "--command", "true")
    pw2 = (*_WL[:-1], "--num-slices", "2", "--pathways", "--pathways-gcs-location", "gs://bkt-1/pw")
    return [
        Case(
            "drop/image-repository-no-build",
            s,
            (*_WL, "--image-repository", "us-docker.pkg.dev/p/r"),
        ),
        Case("drop/docker-name-local", s, (*local, "--docker-name", "trainer", "--dry-run")),
        Case("drop/pull-secret-qr", s, (*qr, "--docker-image-pull-secret", "regcred", "--dry-run")),
        Case(
            "drop/max-slice-restarts-no-elastic",
            s,
            (*pw2, "--max-slice-restarts", "2", "--dry-run"),
        ),
        Case("drop/verbose-no-folder", s, (*_WL, "--verbose")),
        Case("values/doctor-gpu-as-tpu-type", s, ("doctor", "--tpu-type", "h100-80gb-8", *P)),
        Case(
            "values/doctor-gpu-on-queued-resources",
            s,
            ("doctor", "--provider", "queued-resource", "--device-type", "h100-80gb-8", *P),
        ),
    ]


SETUPS["config-duplicate-key"] = lambda r: (
    (r / "home" / ".config" / "xcli").mkdir(parents=True),
    (r / "home" / ".config" / "xcli" / "config.yaml").write_text(
        "project: a-proj-1\nproject: b-proj-2\n", encoding="utf-8"
    ),
)


def _values() -> list[Case]:
    """Values that reached an API unchecked: one parser per kind, used by every flag."""
    s = "values-37"
    img = ("workload", "create", "--cluster", "c", "--workload", "t", "--command", "true", *TPU)
    img = (*img, "--num-slices", "1", *P)
    bad_images = {
        "upper": "UPPER/Case:1",
        "short-digest": "img@sha256:abc",
        "empty-tag": "img:",
        "port": "reg.example.com:70000/a",
        "double-dot-host": "a..b/x",
        "dash-host": "-x.com/a",
        "newline": "img:1\n",
    }
    buckets = {
        "double-dot": "gs://my..bucket/pw",
        "ip": "gs://192.168.1.1/pw",
        "long": "gs://" + "a" * 100 + "/pw",
        "dot-dot-path": "gs://my-bucket/../pw",
    }
    return [
        *(
            Case(f"v37/docker-image-{k}", s, (*img, "--docker-image", v, "--dry-run"))
            for k, v in bad_images.items()
        ),
        *(
            Case(
                f"v37/pathways-gcs-{k}",
                s,
                (*_WL[:-1], "--pathways", "--pathways-gcs-location", v, "--dry-run"),
            )
            for k, v in buckets.items()
        ),
        Case("v37/docker-name-space", s, (*_WL, "--docker-name", "my trainer")),
        Case("v37/pull-secret-slash", s, (*_WL, "--docker-image-pull-secret", "ns/secret")),
        Case("v37/full-width-digit", s, ("catalog", "show", "v6e-\uff18")),
        Case(
            "v37/full-width-tpu-type", s, (*_CREATE[:4], "--tpu-type", "v6e-\uff18", *_CREATE[6:])
        ),
        Case("v37/config-duplicate-key", s, ("config", "list"), setup="config-duplicate-key"),
        Case(
            "v37/image-cache-relative",
            s,
            (*_BUILD, "--base-docker-image", "python:3.10", "--script-dir", "{in}/a-dir"),
            env={"XCLI_IMAGE_CACHE": "cache"},
        ),
    ]


def cases() -> list[Case]:
    return [*_empty(), *_numbers(), *_crashes(), *_dropped(), *_values()]
