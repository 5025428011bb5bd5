"""XPK's vocabulary on xcli's command line: complete both ways, generated docs, the mechanism.

The XPK names are data (xcli/cli/xpk_vocabulary.py, from the xpk 1.16.0 parser); the tests
hold every XPK flag to one fate, every fate to a real xcli flag or command, docs/from-xpk.md to
what the code generates, and five commands from XPK's own docs to a dry-run or a hint.
"""

from __future__ import annotations

from pathlib import Path

import click
import pytest

from xcli.cli import xpk_vocabulary as vocab
from xcli.cli.errors import run_guarded
from xcli.cli.main import cli
from xcli.cli.xpk_table import render, resolved, xcli_command

ROOT = Path(__file__).resolve().parents[2]
WHERE = ["--project", "my-project", "--zone", "us-east5-b"]


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = run_guarded(cli, argv, debug=False)
    out, err = capsys.readouterr()
    return code, out, err


def _options(command: click.Command) -> set[str]:
    return {o for p in command.params if isinstance(p, click.Option) for o in p.opts}


def test_the_generated_table_is_committed() -> None:
    committed = (ROOT / "docs" / "from-xpk.md").read_text(encoding="utf-8")
    assert committed == render(), "run: python -m xcli.cli.xpk_table > docs/from-xpk.md"


def test_every_xpk_flag_has_a_fate_and_every_fate_an_xpk_flag() -> None:
    every = {flag for key in vocab.XPK_FLAGS for flag in vocab.flags_of(key)}
    for key in vocab.XPK_FLAGS:
        for flag in vocab.flags_of(key):
            assert (key, flag) in vocab.FATES_BY_COMMAND or flag in vocab.FATES, (key, flag)
    assert set(vocab.FATES) - every == set(), "a fate for a name XPK does not have"
    for key, flag in vocab.FATES_BY_COMMAND:
        assert flag in vocab.flags_of(key), (key, flag)
    assert set(vocab.XPK_FLAGS) <= set(vocab.COMMANDS)
    # the brief's counts: 59 flags of `xpk cluster create` in XPK's parser, +1 behind a feature
    # flag (--sub-slicing); `A|B` spellings count once, as argparse does
    spellings = f"{vocab.GLOBAL} {vocab.XPK_FLAGS['cluster create']}".split()
    assert len(spellings) == 60


def test_every_fate_names_a_real_xcli_flag_or_command() -> None:
    for key, command_fate in vocab.COMMANDS.items():
        if not command_fate.to:
            assert command_fate.note, key
            continue
        if command_fate.to == ("--version",):
            assert "--version" in _options(cli)
            continue
        command = xcli_command(cli, command_fate.to)
        assert command is not None, key
        if key not in vocab.XPK_FLAGS:
            continue
        names = _options(command)
        for flag in vocab.flags_of(key):
            fate = resolved(command, key, flag)
            if fate.kind == "alias" and flag != "<name>":
                assert flag in names, f"xcli {key} has no {flag}"
            if fate.kind == "mapped":
                flags = {t for t in fate.to if t.startswith("-")}  # --env K=V: its values too
                assert flags <= names, f"xcli {key}: {fate.to}"
                for flag_name in fate.gcloud + fate.gcloud_switches:
                    assert flag_name[1] in names | {""}, f"xcli {key}: {flag_name}"
            if fate.kind in ("ignored", "refused"):
                assert fate.note, (key, flag)


def test_refused_names_get_the_hint_not_a_spelling_guess(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["workload", "create", "--cluster", "c", "--workload", "w", "--command", "x"]
    # XPK's Tensorboard on a Pathways workload (JobSet workloads take it since issue 36)
    pathways = ["workload", "create-pathways", *argv[2:]]
    code, _, err = run([*pathways, "--use-vertex-tensorboard"], capsys)
    assert code == 1
    lines = err.splitlines()
    assert lines[0] == (
        "error: XPK's --use-vertex-tensorboard is not taken by `xcli workload create-pathways`"
    )
    assert lines[1].startswith("hint: xcli's Pathways workloads create no Experiment yet")
    assert len(lines) == 2
    # XPK's stack-trace sidecar: accepted, with a note naming xcli's way (nothing dropped
    # without a word)
    code, _, err = run([*argv, "--deploy-stacktrace-sidecar", "--dry-run"], capsys)
    assert err.startswith("note: --deploy-stacktrace-sidecar ignored: xcli adds no sidecar: "
                          "`xcli workload stacks W --cluster C`")  # fmt: skip
    # workload create takes --on-demand|--spot|--reservation since node auto-provisioning
    # (issue 38), and XPK's --flex as --flex-start (issue 36: tests below)
    # an XPK flag of another command: still no guess
    code, _, err = run(["cluster", "create", "--cluster", "c", "--script-dir", "."], capsys)
    assert (
        code == 1
        and "Did you mean" not in err
        and "takes no --script-dir (XPK's `workload create` has it)" in err
    )
    # XPK's global --dry-run on a command that only reads: taken, with a note (issue 36)
    code, _out, err = run(["cluster", "describe", "--cluster", "c", "--dry-run"], capsys)
    assert err.startswith("note: --dry-run ignored: this command only reads, so it runs")
    assert "error: no project set" in err  # then it went on, as without --dry-run
    # XPK's create-ray is `cluster create` with its --ray-version (issue 36, plan/gke/ray.py):
    # the same plan as xcli's own spelling
    ray = ["--cluster", "c", "--tpu-type", "v5litepod-8", "--ray-version", "2.39.0", *WHERE]
    _, ours, _ = run(["cluster", "create", *ray, "--on-demand", "--dry-run"], capsys)
    code, xpk, err = run(["cluster", "create-ray", *ray, "--on-demand", "--dry-run"], capsys)
    assert code == 0 and xpk == ours and "RayCluster ray/raycluster (Ray 2.39.0" in ours, err
    # an XPK command xcli spells otherwise: `inspector` is `cluster inspect`
    inspector = ["--cluster", "c", "--workload", "w", *WHERE, "--dry-run"]
    _, ours, _ = run(["cluster", "inspect", *inspector], capsys)
    code, xpk, err = run(["inspector", *inspector, "--print-to-terminal"], capsys)
    assert code == 0 and xpk == ours and "Plan: inspect cluster c, workload w" in ours, err


def test_mapped_names_plan_what_xcli_names_plan(capsys: pytest.CaptureFixture[str]) -> None:
    base = ["cluster", "create", "--cluster", "demo", "--tpu-type", "v6e-8", *WHERE, "--dry-run"]
    _, ours, _ = run([*base, "--spot", "--cpu-machine-type", "n2-standard-8"], capsys)
    code, xpk, err = run(
        [*base, "--spot", "--default-pool-cpu-machine-type=n2-standard-8", "--no-dry-run",
         "--enable-gcsfuse-csi-driver", "--memory-limit", "192Gi"], capsys)  # fmt: skip
    assert code == 0 and xpk == ours and "n2-standard-8" in ours, err
    assert err.count("note: ") == 2 and "--enable-gcsfuse-csi-driver ignored: " in err
    wl = ["workload", "create", "--cluster", "d", "--workload", "w", "--command", "x",
          "--docker-image", "img", "--tpu-type", "v6e-8", "--num-slices", "1", *WHERE,
          "--dry-run"]  # fmt: skip
    _, ours, _ = run([*wl, "--termination-grace-period", "45s", "--ttl-after-finished", "10m"],
                     capsys)  # fmt: skip
    code, xpk, err = run([*wl, "-tgps", "45", "--ttl-seconds-after-finished=600", "--quiet"],
                         capsys)  # fmt: skip
    assert code == 0 and xpk == ours and '"terminationGracePeriodSeconds": 45' in ours, err


def test_xcli_spellings_of_the_same_names_still_work(capsys: pytest.CaptureFixture[str]) -> None:
    attach = ["storage", "attach", "data", "--type", "gcsfuse", "--bucket", "b", "--cluster",
              "demo", *WHERE, "--dry-run"]  # fmt: skip
    _, ours, _ = run([*attach, "--readonly", "--mount-point", "/data"], capsys)
    code, xpk, err = run([*attach, "--readonly", "true", "--mount-point=/data"], capsys)
    assert code == 0 and xpk == ours and "/data" in ours, err
    _, plain, _ = run([*attach, "--mount-point", "/data"], capsys)
    code, off, err = run([*attach, "--readonly=false", "--mount-point", "/data"], capsys)
    assert code == 0 and off == plain != ours, err


def test_xpk_values_are_renamed_or_refused(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["workload", "list", "--cluster", "c", "--filter-by-status", "FINISHED"],
                       capsys)  # fmt: skip
    assert code == 1 and "--state succeeded, then --state failed" in err
    code, out, err = run(["version"], capsys)
    assert code == 0 and out.startswith("xcli, version "), err
    code, _, err = run(["cluster", "delete", "--cluster", "q", "--provider", "local", "--force",
                        "--dry-run"], capsys)  # fmt: skip
    assert code == 0, err


# Five commands from XPK's docs (AI-Hypercomputer/xpk at 367c838253bea41e7d7716145ad6513f44c1a21e),
# `xpk` replaced by `xcli`, the shell variables given values: each runs as a dry-run or is
# refused with a hint naming the xcli way.
XPK_DOCS = [
    (  # docs/usage/clusters.md, lines 57-59
        "xcli cluster create --cluster xpk-test --tpu-type=v5litepod-16 --num-slices=4 --spot",
        0,
        "",
    ),
    (  # docs/usage/clusters.md, lines 71-74
        "xcli cluster create --cluster xpk-test --tpu-type=v5litepod-16 --cpu-limit=112 "
        "--memory-limit=192Gi --on-demand",
        0,
        "note: --cpu-limit ignored: xcli sizes the Kueue and JobSet controllers",
    ),
    (  # docs/usage/clusters.md, lines 80-83
        "xcli cluster create-pathways --cluster xpk-pw-test --num-slices=4 --on-demand "
        "--tpu-type=v5litepod-16",
        0,  # issue 25: `xcli cluster create --pathways`
        "",
    ),
    (  # docs/usage/workloads.md, lines 31-34
        'xcli workload create --workload xpk-test-workload --command "echo goodbye" '
        "--cluster xpk-test --flex --tpu-type=v5litepod-16 --project=my-project "
        "--docker-image=gcr.io/my-project/img:1",
        0,  # issue 36: --flex-start, the cluster's flex-start pools (the image: not XPK's)
        "",
    ),
    (  # docs/usage/storage.md, lines 33-36
        "xcli storage attach test-fuse-storage --type=gcsfuse --project=my-project "
        "--cluster=xpk-test --zone=us-east5-b --mount-point=/test-mount-point --readonly=false "
        "--bucket=test-bucket --size=1 --auto-mount=false",
        0,
        "note: --size ignored: xcli reads the size from the instance",
    ),
]


@pytest.mark.parametrize(("line", "code", "says"), XPK_DOCS)
def test_commands_from_xpk_docs(
    line: str, code: int, says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    import shlex

    argv = shlex.split(line)[1:]
    if code == 0:
        argv += ["--dry-run"] + ([] if "--zone=" in line else ["--zone", "us-east5-b"])
        argv += [] if "--project=" in line else ["--project", "my-project"]
    got, out, err = run(argv, capsys)
    assert got == code, err
    assert says in err
    if code == 0:
        assert out.strip(), "a dry-run prints its plan"


SAMPLES = {
    "--gke-version": "1.34.1-gke.1829001",
    "--tensorboard-region": "us-west1",
    "--ray-version": "2.39.0",
}  # values a callback checks


def _sample(param: click.Option) -> str:
    """A value click takes for `param` (its first choice, its lowest number, else a word)."""
    for name in param.opts:
        if name in SAMPLES:
            return SAMPLES[name]
    kind = param.type
    if isinstance(kind, click.Choice):
        return str(kind.choices[0])
    if isinstance(kind, (click.IntRange, click.FloatRange)) and kind.min is not None:
        return str(int(kind.min) + 1)
    if isinstance(kind, (click.types.IntParamType, click.types.FloatParamType)):
        return "1"
    return "x1"


def test_every_alias_same_row_takes_xpks_form_as_typed() -> None:
    # docs/from-xpk.md's "alias | same" rows (issue 36): XPK's own spelling, `--flag value`
    # and `--flag=value`, goes through the translation untouched and click parses it into
    # the same option
    from xcli.cli.xpk_names import translate

    checked, bad = 0, []
    for key in vocab.XPK_FLAGS:
        words = vocab.COMMANDS[key].to
        if not words or words[0].startswith("-"):
            continue
        command = xcli_command(cli, words)
        assert command is not None, key
        options = {o: p for p in command.params if isinstance(p, click.Option) for o in p.opts}
        for flag, takes in vocab.flags_of(key).items():
            if resolved(command, key, flag).kind != "alias" or flag == "<name>":
                continue
            param = options[flag]
            forms = [[flag, _sample(param)], [f"{flag}={_sample(param)}"]] if takes else [[flag]]
            for form in forms:
                args = [*key.split(), *form]
                ctx = click.Context(cli)
                out = translate(cli, ctx, args)
                assert out[-len(form) :] == form, (key, form, out)
                sub = command.make_context(
                    key, list(out[len(out) - len(form) :]), resilient_parsing=True
                )
                if sub.params[str(param.name)] in (None, False, ()):
                    bad.append((key, form))
                checked += 1
    assert bad == []
    assert checked > 100  # every alias row of the page, in both spellings


def test_xpks_workload_flex_asks_for_the_clusters_flex_start_capacity(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """XPK's `workload create --flex` (docs/usage/workloads.md:31) is `--flex-start`: planned
    for a flex-start cluster (its nodes' label selected), refused on a cluster of another
    capacity with the way to get one."""
    argv = ["workload", "create", "--cluster", "c", "--workload", "w", "--command", "x",
            "--docker-image", "gcr.io/p/i:1", *WHERE, "--dry-run", "-o", "json"]  # fmt: skip
    code, out, err = run([*argv, "--tpu-type", "v5litepod-16", "--flex"], capsys)
    assert code == 0, err
    assert '"cloud.google.com/gke-flex-start": "true"' in out
    meta = tmp_path / "meta.yaml"
    meta.write_text("accelerator: v5litepod-16\ncapacity: spot\n")
    code, _, err = run([*argv, "--flex", "--cluster-metadata", str(meta)], capsys)
    assert code == 1 and err.splitlines() == [
        "error: --flex-start: cluster c has spot capacity, not flex-start",
        "hint: a workload runs on its cluster's flex-start pools: create the cluster with `xcli "
        "cluster create --flex-start` (XPK's cluster create --flex), or drop --flex-start (on an "
        "auto-provisioning cluster: --on-demand, --spot or --reservation)",
    ]
    pathways = ["workload", "create-pathways", *argv[2:]]  # the Pathways kind checks it too
    code, _, err = run([*pathways, "--flex", "--cluster-metadata", str(meta)], capsys)
    assert code == 1 and "error: --flex-start: cluster c has spot capacity" in err


def test_xpks_own_mistakes_get_an_answer_that_names_them(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Two lines XPK's docs have and XPK's argparse refuses too (issue 36): an underscore
    spelling (docs/usage/storage.md:58) and an option without its value (troubleshooting.md:113)."""
    code, _, err = run(["storage", "create", "s", "--type=gcpfilestore", "--access_mode=x",
                        "--cluster", "c", *WHERE, "--dry-run"], capsys)  # fmt: skip
    lines = err.splitlines()  # click's own error, alone (exit 2), with xcli's hint
    assert code == 2 and lines[0] == "error: No such option '--access_mode'."
    assert lines[1].startswith("hint: ")
    code, _, err = run(["workload", "create", "--cluster", "--workload", "w", "--command", "x",
                        *WHERE, "--dry-run"], capsys)  # fmt: skip
    assert code == 1 and err.splitlines() == [
        "error: --cluster has no value: the word after it is the option --workload",
        "hint: give --cluster its value, e.g. `xcli workload create --cluster NAME ...`",
    ]
    # a value that merely starts like an option is still a value
    code, _, err = run(["cluster", "create", "--cluster", "c", "--tpu-type", "v5litepod-16",
                        "--custom-cluster-arguments", "--network=n", *WHERE, "--dry-run"],
                       capsys)  # fmt: skip
    assert "has no value" not in err


def test_create_adapt_from_ct_is_cluster_adapt(capsys: pytest.CaptureFixture[str]) -> None:
    # recipes/Cluster_create_adapt_from_ct.md:6 at 367c838253be, and xcli's own form
    flags = ["--cluster=c", "--tpu-type=v6e-8", *WHERE, "--dry-run"]
    _, ours, _ = run(["cluster", "adapt", *flags], capsys)
    code, xpk, err = run(["cluster", "create", *flags, "--adapt-from-ct"], capsys)
    assert code == 0 and xpk == ours and ours.startswith("Plan: adapt GKE cluster c"), err
    assert "note: --adapt-from-ct: as `xcli cluster adapt`" in err


def test_gcloud_pass_through_takes_the_flags_xcli_has(capsys: pytest.CaptureFixture[str]) -> None:
    base = ["cluster", "create", "--cluster", "demo", "--tpu-type", "v6e-8", "--spot", *WHERE,
            "--dry-run"]  # fmt: skip
    _, ours, _ = run(
        [*base, "--network", "n", "--private", "--master-ipv4-cidr", "172.16.0.32/28",
         "--authorized-networks", "10.0.0.0/8", "--release-channel", "rapid"], capsys,
    )  # fmt: skip
    custom = ("--network=n --enable-ip-alias --enable-private-nodes --master-ipv4-cidr "
              "172.16.0.32/28 --enable-master-authorized-networks --master-authorized-networks "
              "10.0.0.0/8 --release-channel=rapid")  # fmt: skip
    code, xpk, err = run([*base, f"--custom-cluster-arguments={custom}"], capsys)
    assert code == 0 and xpk == ours and '"channel": "RAPID"' in ours, err
    code, _, err = run([*base, "--custom-cluster-arguments=--enable-autoscaling"], capsys)
    assert code == 1 and "gcloud's --enable-autoscaling" in err and "hint: " in err
    # an empty pass-through is refused like any empty value, not read as "no gcloud flags"
    code, _, err = run([*base, "--custom-cluster-arguments="], capsys)
    assert code == 1 and err.splitlines()[0] == (
        "error: --custom-cluster-arguments was given an empty value"
    )
    assert err.splitlines()[1].startswith("hint: ")
