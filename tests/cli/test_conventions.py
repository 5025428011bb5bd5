"""CLI conventions: NO_COLOR and terminals, --output yaml, options only where they mean
something, XPK's names, value completion, did-you-mean for family names, and clusters found
without --provider."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
from pathlib import Path

import click
import pytest
import yaml

from xcli import cluster_index
from xcli.cli.errors import run_guarded
from xcli.cli.main import cli

XCLI = [sys.executable, "-m", "xcli"]


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = run_guarded(cli, argv, debug=False)
    out, err = capsys.readouterr()
    return code, out, err


def _under_terminal(argv: list[str], env: dict[str, str]) -> bytes:
    """Run argv with stdout and stderr on a pseudo-terminal; return everything it wrote."""
    main, secondary = pty.openpty()
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=secondary, stderr=secondary,
                            env=env, close_fds=True)  # fmt: skip
    os.close(secondary)
    chunks = []
    while True:
        ready, _, _ = select.select([main], [], [], 30)
        if not ready:
            break
        try:
            chunk = os.read(main, 65536)
        except OSError:  # EIO: the terminal's other end is closed
            break
        if not chunk:
            break
        chunks.append(chunk)
    proc.wait(timeout=30)
    os.close(main)
    return b"".join(chunks)


@pytest.mark.parametrize(
    "argv",
    [
        ["catalog", "list", "--family", "v5p"],  # a table (rich on a terminal)
        ["cluster", "describe", "--cluster", "nope"],  # an error line (red on a terminal)
    ],
)
def test_no_color_under_a_terminal_prints_no_escape_codes(argv: list[str]) -> None:
    # no project from anywhere (the describe fails before any call), and no way out if it did not
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("NO_COLOR", "TERM", "FORCE_COLOR")
        and not k.startswith(("CLOUDSDK_", "GOOGLE_", "XCLI_PROJECT"))
    }
    env.update(TERM="xterm-256color", HTTPS_PROXY="http://127.0.0.1:9")
    coloured = _under_terminal([*XCLI, *argv], env)
    assert b"\x1b[" in coloured, coloured  # the test can fail: a terminal does get colour
    plain = _under_terminal([*XCLI, *argv], {**env, "NO_COLOR": "1"})
    assert b"\x1b" not in plain, plain
    assert (b"v5p-8" in plain) if argv[0] == "catalog" else plain.startswith(b"error: ")


def test_piped_listing_is_plain_columns_without_rich() -> None:
    code = (
        "import sys; from xcli.cli.main import main\n"
        "try:\n    main(['catalog', 'list', '--family', 'v5p'])\n"
        "except SystemExit:\n    pass\n"
        "sys.stderr.write('rich loaded' if 'rich' in sys.modules else 'no rich')"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stderr == "no rich"
    lines = done.stdout.splitlines()
    assert lines[0].split() == ["NAME", "TOPOLOGY", "CHIPS", "VMS", "CHIPS/VM", "MACHINE", "TYPE",
                                "GKE", "LABEL"]  # fmt: skip
    assert lines[1].startswith("v5p-8      2x2x1     4      1     4         ct5p-hightpu-4t")
    assert len({len(line) for line in lines}) == 1  # every cell padded: aligned columns


def test_yaml_is_the_json_document(capsys: pytest.CaptureFixture[str]) -> None:
    _, as_json, _ = run(["catalog", "show", "v5p-8", "-o", "json"], capsys)
    code, as_yaml, err = run(["catalog", "show", "v5p-8", "-o", "yaml"], capsys)
    assert code == 0, err
    assert as_yaml.startswith("name: v5p-8\nfamily: v5p\n")
    data = yaml.safe_load(as_yaml)
    assert data == json.loads(as_json)
    assert list(data) == list(json.loads(as_json))  # the same key order


def test_yaml_dry_run_plan_is_the_json_plan(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["cluster", "create", "--cluster", "demo", "--tpu-type", "v6e-8", "--spot",
            "--project", "my-project", "--zone", "us-east5-b", "--dry-run"]  # fmt: skip
    _, as_json, _ = run([*argv, "-o", "json"], capsys)
    code, as_yaml, err = run([*argv, "-o", "yaml"], capsys)
    assert code == 0, err
    assert yaml.safe_load(as_yaml) == json.loads(as_json)


@pytest.mark.parametrize(
    "argv",
    [
        ["catalog", "list", "--dry-run"],
        ["catalog", "list", "--yes"],
        ["catalog", "show", "v5p-8", "--project", "p"],
        ["config", "list", "--zone", "z"],
        ["config", "set", "zone", "us-east5-b", "--out", "d"],
        # (`cluster list|describe --dry-run` are XPK's: refused with a hint,
        # tests/cli/test_xpk_vocabulary.py)
        ["workload", "status", "w", "--cluster", "c", "--dry-run"],
        ["ssh", "--cluster", "c", "--command", "true", "--yes"],
    ],
)
def test_options_are_offered_only_where_they_mean_something(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(argv, capsys)
    assert code == 2 and out == ""
    assert err.startswith("error: No such option") and len(err.splitlines()) == 2


def test_config_set_keeps_its_dry_run(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["config", "set", "zone", "us-east5-b", "--dry-run"], capsys)
    assert code == 0 and out.startswith("would set zone = us-east5-b")


def test_xpk_names(capsys: pytest.CaptureFixture[str]) -> None:
    # us-east5-a: a zone where Cloud TPU offers v6e flex-start (xcli/catalog/zones.json)
    argv = ["cluster", "create", "--provider", "queued-resource", "--cluster", "q", "--tpu-type",
            "v6e-8", "--project", "my-project", "--zone", "us-east5-a", "--dry-run"]  # fmt: skip
    _, ours, _ = run([*argv, "--flex-start", "--max-run-duration", "2h"], capsys)
    code, xpk, err = run([*argv, "--flex", "--max-run-duration", "2h"], capsys)
    assert code == 0 and xpk == ours and "flex" in ours.lower(), err
    code, _, err = run(["cluster", "delete", "--cluster", "q", "--provider", "local", "--quiet",
                        "--dry-run"], capsys)  # fmt: skip
    assert code == 0, err
    code, _, err = run(["workload", "status", "a", "--workload", "b", "--cluster", "c"], capsys)
    assert code == 1 and err.splitlines()[0] == (
        "error: two workloads named: a (argument) and b (--workload)"
    )
    code, _, err = run(["workload", "status", "--cluster", "c", "--provider", "local"], capsys)
    assert code == 2 and err.startswith("error: Missing argument 'WORKLOAD' (or --workload NAME).")


def test_xpk_workload_flag_names_the_workload(
    capsys: pytest.CaptureFixture[str], isolated_home: Path
) -> None:
    # a local cluster's workloads are read from this machine: --workload finds the same one
    code, _, err = run(["workload", "status", "--workload", "w1", "--cluster", "c",
                        "--provider", "local"], capsys)  # fmt: skip
    by_flag = err
    code2, _, err2 = run(["workload", "status", "w1", "--cluster", "c", "--provider", "local"],
                         capsys)  # fmt: skip
    assert (code, by_flag) == (code2, err2) and "w1" in err2


def test_family_name_as_prefix_suggests_the_tpu_type(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["catalog", "show", "v5e-16"], capsys)
    assert code == 1
    assert err.splitlines()[1].startswith("hint: did you mean v5litepod-16?")


def test_completion_of_values(isolated_home: Path) -> None:
    from xcli.cli import complete

    ctx = click.Context(cli)
    names = [i.value for i in complete.accelerators(ctx, click.Option(["--x"]), "V5litepod-1")]
    assert names == ["v5litepod-16", "v5litepod-128"]
    cluster_index.record("demo", "local")
    cluster_index.record("dq", "queued-resource")
    cluster_index.record("other", "gke")
    found = [i.value for i in complete.clusters(ctx, click.Option(["--x"]), "d")]
    assert found == ["demo", "dq"]


def test_completion_through_clicks_environment(isolated_home: Path) -> None:
    cluster_index.record("demo", "local")
    env = {**os.environ, "_XCLI_COMPLETE": "bash_complete", "COMP_CWORD": "3"}
    argv = [sys.executable, "-c", "from xcli.cli.main import cli; cli(prog_name='xcli')"]
    done = subprocess.run(argv, env={**env, "COMP_WORDS": "xcli ssh --cluster de"},
                          capture_output=True, text=True)  # fmt: skip
    assert done.stdout.splitlines() == ["plain,demo"]
    env["COMP_CWORD"] = "4"
    done = subprocess.run(argv, env={**env, "COMP_WORDS": "xcli cluster create --tpu-type v6e-25"},
                          capture_output=True, text=True)  # fmt: skip
    assert done.stdout.splitlines() == ["plain,v6e-256"]


def test_provider_is_found_from_the_index(capsys: pytest.CaptureFixture[str]) -> None:
    assert cluster_index.provider_for("demo", None, "gke") == "gke"  # nothing recorded
    cluster_index.record("demo", "queued-resource")
    assert cluster_index.provider_for("demo", None, "gke") == "queued-resource"
    assert cluster_index.provider_for("demo", "gke", "gke") == "gke"  # explicit wins
    cluster_index.record("demo", "gke")
    code, _, err = run(["cluster", "describe", "--cluster", "demo"], capsys)
    assert code == 1 and err.splitlines() == [
        "error: cluster demo is known under several providers: gke, queued-resource",
        "hint: say which: --provider gke or --provider queued-resource",
    ]
    # ssh only considers providers with SSH workers: not ambiguous there
    assert cluster_index.provider_for("demo", None, "x", ("queued-resource", "local")) == (
        "queued-resource"
    )
    cluster_index.forget("demo", "gke")
    cluster_index.forget("demo", "queued-resource")
    assert cluster_index.providers_of("demo") == []


def test_create_records_and_delete_forgets(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--cluster", "idx", "--provider", "local"]
    code, _, err = run(["cluster", "create", *argv, "--tpu-type", "v5litepod-8", "--dry-run"],
                       capsys)  # fmt: skip
    assert code == 0, err
    assert cluster_index.providers_of("idx") == []  # a dry-run records nothing
    # recorded as local: delete plans the local provider's steps without --provider
    cluster_index.record("idx", "local")
    code, out, err = run(["cluster", "delete", "--cluster", "idx", "--dry-run"], capsys)
    assert code == 0, err
    _, local, _ = run(["cluster", "delete", *argv, "--dry-run"], capsys)
    # the same plan, and its header says why it is local (issue 27's provider rule)
    why = "  note: provider: local (this machine recorded cluster idx as local; pass --provider "
    why += "to choose another)\n"
    assert why in out and out.replace(why, "") == local and "local/idx" in out


def test_no_image_flag_builds_this_folder_on_python_3_10_as_xpk_does(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # issue 36: XPK layers the current folder onto python:3.10 when no image is named
    # (AI-Hypercomputer/xpk 367c838253be src/xpk/core/docker_image.py:31-32)
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "train.py").write_text("print('train')\n")
    monkeypatch.chdir(tmp_path / "src")
    argv = ["workload", "create", "--cluster", "c", "--workload", "w", "--command",
            "python3 train.py", "--tpu-type", "v6e-256", "--dry-run", "--project", "my-project",
            "--zone", "us-east5-b"]  # fmt: skip
    code, out, err = run(argv, capsys)
    assert code == 0, err
    first = out.splitlines()[0]
    assert first.startswith("Plan: create workload w on cluster c, its image built from ")
    assert "src/ layered onto python:3.10 (XPK's default: no --docker-image" in first
    assert "[image-base] read base image index.docker.io/library/python:3.10" in out
    assert "packed 1 paths" in err
    code, out, err = run([*argv, "--docker-image", "python:3.11"], capsys)
    assert code == 0 and "python:3.11" in out and "image-base" not in out, err


def test_copy_from_several_workers_into_a_file_is_refused(tmp_path: Path) -> None:
    from xcli.app.ssh import copy_action
    from xcli.errors import UserError

    existing = tmp_path / "out.log"
    existing.write_text("")
    with pytest.raises(UserError) as err:
        copy_action((":~/job/out.log", str(existing)), False, 2)  # --worker=3 on two slices
    assert err.value.message == f"copying from 2 workers needs a folder, and {existing} is a file"
    assert "s0-w3" in err.value.hint


def test_a_local_cluster_is_known_by_its_folder_too(isolated_home: Path) -> None:
    from xcli import paths
    from xcli.cli import complete

    folder = paths.state_dir() / "local" / "older"  # made before the index existed
    folder.mkdir(parents=True)
    assert cluster_index.providers_of("older") == []  # no cluster.json: not a cluster
    (folder / "cluster.json").write_text("{}", encoding="utf-8")
    assert cluster_index.providers_of("older") == ["local"]
    assert cluster_index.provider_for("older", None, "queued-resource") == "local"
    assert [
        i.value for i in complete.families(click.Context(cli), click.Option(["--x"]), "v5")
    ] == [
        "v5e",
        "v5p",
    ]


def test_every_command_has_its_summary_line_in_xcli_help(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # issue 36: `doctor` had none (the lazy group prints HELP, not the command's docstring)
    from xcli.cli.main import COMMANDS, HELP

    assert set(HELP) == set(COMMANDS)
    code, out, _ = run(["--help"], capsys)
    assert code == 0
    listed = out.split("Commands:", 1)[1].split("\n\n", 1)[0].splitlines()
    names = [line.split()[0] for line in listed if line.startswith("  ") and line[2] != " "]
    for line in listed:
        if line.startswith("  ") and line[2] != " ":
            assert len(line.split()) > 1, f"no summary: {line!r}"
    assert sorted(names) == sorted(COMMANDS)


def test_cluster_list_without_credentials_shows_this_machines_clusters_and_says_what_not(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # issue 36: with no --provider, the local clusters need no credentials; GKE's are noted
    from tests.providers.test_registry import ListsOne  # a local provider listing one cluster
    from xcli.cli.deps import Dependencies
    from xcli.providers import DEFAULT

    registry = DEFAULT.with_target("local", f"{ListsOne.__module__}:ListsOne")
    argv = ["cluster", "list", "--project", "my-project", "--zone", "us-east5-b", "-o", "json"]
    code = run_guarded(cli, argv, debug=False, obj=Dependencies(providers=registry))
    out, err = capsys.readouterr()
    assert code == 0, err
    assert [r["name"] for r in json.loads(out)] == ["fake"]
    assert err.startswith("note: gke clusters not read: no Google credentials found (")


def test_an_unknown_cluster_name_is_said_before_the_credentials_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from xcli import cluster_index

    cluster_index.record("demo", "local")
    argv = ["ssh", "--cluster", "deom", "--worker=all", "--command", "hostname", "--project",
            "my-project", "--zone", "us-east5-b"]  # fmt: skip
    code, _out, err = run(argv, capsys)
    lines = err.splitlines()
    assert code == 1
    assert lines[0] == "note: no cluster deom on this machine; known: demo (local)"
    assert lines[1].startswith("error: xcli ssh needs Google credentials")
    # a cluster this machine knows, or an explicit --provider: no such note
    code, _out, err = run([*argv, "--provider", "queued-resource"], capsys)
    assert "no cluster deom on this machine" not in err


def test_the_unknown_cluster_note_comes_from_the_console_script_too() -> None:
    """The command as a user runs it (argv from the process, not handed to main): the note
    was missing there, since it read only the argv a test passes."""
    import os
    import subprocess
    import sys

    from xcli import cluster_index

    cluster_index.record("demo", "local")
    env = {k: v for k, v in os.environ.items() if k != "GOOGLE_APPLICATION_CREDENTIALS"}
    argv = [sys.executable, "-m", "xcli", "ssh", "--cluster", "deom", "--worker=all",
            "--command", "hostname"]  # fmt: skip
    run = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60, check=False)
    lines = run.stderr.splitlines()
    assert run.returncode == 1
    # no project set either: the note first, whichever setting or login is missing
    assert lines[0] == "note: no cluster deom on this machine; known: demo (local)"
    assert lines[1] == "error: no project set"


def test_cluster_list_without_a_project_lists_this_machines_clusters(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # issue 36: no project (nor credentials) set: the local clusters, and a note for gke's
    from tests.providers.test_registry import ListsOne
    from xcli.cli.deps import Dependencies
    from xcli.providers import DEFAULT

    registry = DEFAULT.with_target("local", f"{ListsOne.__module__}:ListsOne")
    code = run_guarded(cli, ["cluster", "list", "-o", "json"], debug=False,
                       obj=Dependencies(providers=registry))  # fmt: skip
    out, err = capsys.readouterr()
    assert code == 0, err
    assert [r["name"] for r in json.loads(out)] == ["fake"]
    assert err.startswith("note: gke clusters not read: no project set (")


def test_xpks_storage_type_names_work_on_every_storage_command(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # issue 36 (the trial's F14): `gcpfilestore` was taken by create and attach, not delete
    where = ["--cluster", "xpk-test", "--project", "my-project", "--zone", "us-east5-b"]
    titles = {"delete": "Plan: delete filestore storage fs of cluster xpk-test",
              "detach": "Plan: detach storage fs from cluster xpk-test"}  # fmt: skip
    for verb, title in titles.items():
        argv = ["storage", verb, "fs", "--type", "gcpfilestore", "--instance", "fs", *where]
        code, out, err = run([*argv, "--dry-run"], capsys)
        assert code == 0, err
        assert out.startswith(title)
