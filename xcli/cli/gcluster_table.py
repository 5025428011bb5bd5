"""docs/from-gcluster.md, generated from the data below: `python -m xcli.cli.gcluster_table > FILE`.

Each flag of Cluster Toolkit's `gcluster job submit|list|logs|cancel` (and the `job` group's
own) with its xcli form: the xcli command and flag that does the same (checked by a test to
exist), or none and why. Read at GoogleCloudPlatform/cluster-toolkit commit
c765092f4d9b731d5ab4f5d64f15ed411906422a (`develop`, 2026-07-01): `cmd/job/submit.go:129-179`,
`list.go:54-55`, `logs.go:34`, `cancel.go:24`, `job.go:71-73`;
`pkg/orchestrator/gke/gke_job_orchestrator.go:1537-1572` and
`pkg/orchestrator/gke/templates/jobset.tmpl:12-30` for what `--restart-on-exit-codes` does.
A test fails when the committed file differs from `render()`.
"""

from __future__ import annotations

from dataclasses import dataclass

COMMIT = "c765092f4d9b731d5ab4f5d64f15ed411906422a"


@dataclass(frozen=True)
class Row:
    gcluster: str  # `job submit --name`
    default: str  # its default or rule, as gcluster has it
    command: str  # the xcli command ("workload create"); "" when xcli has none
    flags: tuple[str, ...] = ()  # the xcli flags (each checked to exist on `command`)
    note: str = ""


SUBMIT = "workload create"
ROWS: tuple[Row, ...] = (
    Row("job -c, --cluster", "from `job config set`", SUBMIT, ("--cluster",)),
    Row(
        "job -l, --location",
        "region or zone",
        SUBMIT,
        ("--zone",),
        "a zone; the region follows from it",
    ),
    Row(
        "job -p, --project",
        "from `job config set`",
        SUBMIT,
        ("--project",),
        "also XCLI_PROJECT, `xcli config set project`, gcloud's",
    ),
    Row(
        "job config set project|cluster|location",
        "~/.gcluster/context.json",
        "config set",
        (),
        "keys project and zone; no cluster key",
    ),
    Row(
        "submit -n, --name",
        "required, at most 28 characters",
        SUBMIT,
        ("--workload",),
        "the limit is computed from the shape",
    ),
    Row("submit -e, --command", "required", SUBMIT, ("--command",)),
    Row(
        "submit --compute-type",
        "a machine type, a GKE accelerator or a TPU short name",
        SUBMIT,
        ("--tpu-type", "--device-type"),
        "XPK's names (v6e-8, h100-80gb-8); CPU-only machine types are not in xcli's catalogue",
    ),
    Row(
        "submit --topology",
        "with a TPU compute type",
        SUBMIT,
        ("--tpu-type",),
        "in the name: --tpu-type v6e-4x4 (= v6e-16)",
    ),
    Row("submit -i, --image", "a pre-built image, full path", SUBMIT, ("--docker-image",)),
    Row(
        "submit -B, --base-image + -b, --build-context",
        "both or neither; crane, from a registry only (pkg/imagebuilder/crane_builder.go)",
        SUBMIT,
        ("--base-docker-image", "--script-dir"),
        "no image flag at all builds the current "
        "folder on python:3.10 (XPK's default); a base with no registry is read from a local "
        "Docker Engine or Podman socket when one holds it",
    ),
    Row(
        "submit -f, --platform",
        "linux/amd64",
        SUBMIT,
        (),
        "none: the cluster's platform (linux/arm64 for GB200)",
    ),
    Row(
        "submit -o, --dry-run-out FILE",
        "writes the manifest, skips the checks and the build",
        SUBMIT,
        ("--dry-run", "--output-manifest-file"),
        "the dry-run prints every request too, with no credentials",
    ),
    Row("submit --num-slices", "1", SUBMIT, ("--num-slices",)),
    Row("submit --num-nodes", "1; refused with a TPU", SUBMIT, ("--num-nodes",), "GPU nodes"),
    Row("submit --restarts", "1 (JobSet maxRestarts)", SUBMIT, ("--max-restarts",), "default 0"),
    Row(
        "submit --restart-on-exit-codes",
        "documented as not counted against --restarts",
        SUBMIT,
        ("--restart-on-exit-codes",),
        "gcluster's manifest does not do what its guide "
        "says: it writes `podFailurePolicy` FailJob for codes NotIn the list with "
        "`backoffLimit: 0`, and JobSet FailJobSet on PodFailurePolicy, so a listed code fails "
        "the Job by its backoff limit and restarts the JobSet, counted against maxRestarts, "
        "and any other code fails the JobSet at once; the guide's budget-free rule (`Ignore` "
        "for codes `In` the list) was the code until commit b75035c9 (2026-04-28); "
        "xcli says the same: these codes (and 42, 128-255) restart, each restart counted",
    ),
    Row("submit --gke-ttl-after-finished", "1h", SUBMIT, ("--ttl-after-finished",), "default 12h"),
    Row("submit --grace-period", "30s", SUBMIT, ("--termination-grace-period",)),
    Row(
        "submit --mount SRC:DEST[:ro|rw]",
        "gs://, filestore://, a PVC, a host path",
        SUBMIT,
        ("--storage",),
        "attach once with `xcli storage attach NAME --type ... --mount-point D`"
        ", then --storage NAME",
    ),
    Row("submit --env KEY=VALUE", "repeatable", SUBMIT, ("--env", "--env-file")),
    Row(
        "submit -q, --queue",
        "auto-discovered",
        SUBMIT,
        ("--namespace",),
        "the queue follows the namespace (a team's, `xcli team create`)",
    ),
    Row(
        "submit --priority",
        "the cluster's default",
        SUBMIT,
        ("--priority",),
        "very-low to very-high, default medium",
    ),
    Row("submit --gke-scheduler", "", SUBMIT, ("--scheduler",)),
    Row("submit --image-pull-secret", "comma list", SUBMIT, ("--docker-image-pull-secret",)),
    Row(
        "submit --service-account, --placement-policy, --node-constraint, --cpu-affinity",
        "",
        "",
        (),
        "none",
    ),
    Row(
        "submit --gke-disable-parallel-containers",
        "false",
        "",
        (),
        "not needed: one container per VM",
    ),
    Row(
        "submit --gke-nap-provisioning, --gke-nap-reservation",
        "NAP clusters; NAP-limits pre-flight",
        SUBMIT,
        ("--spot", "--on-demand", "--reservation"),
        "on a `cluster create --enable-autoprovisioning` cluster; a workload over its chip "
        "limit is refused before anything is sent",
    ),
    Row(
        "submit --await-job-completion, --timeout",
        "off; -1s",
        "workload wait",
        ("--timeout",),
        "`xcli workload wait W --cluster C --timeout D` (a bare number is seconds)",
    ),
    Row(
        "submit --verbose",
        "",
        SUBMIT,
        ("--env",),
        "XPK's --enable-debug-logs is taken: the TPU runtime's log settings as --env",
    ),
    Row("submit --pathways", "needs --pathways-gcs-location", SUBMIT, ("--pathways",)),
    Row(
        "submit --pathways-gcs-location",
        "required with --pathways",
        SUBMIT,
        ("--pathways-gcs-location",),
        "default: XPK's gs://cloud-pathways-staging/tmp",
    ),
    Row("submit --pathways-headless", "", SUBMIT, ("--headless",)),
    Row(
        "submit --pathways-elastic-slices, --pathways-max-slice-restarts",
        "0, 1",
        SUBMIT,
        ("--elastic-slices", "--max-slice-restarts"),
    ),
    Row(
        "submit --pathways-proxy-server-image, -server-image, -worker-image",
        "",
        SUBMIT,
        ("--pathways-version",),
        "one tag pins proxy and server",
    ),
    Row(
        "submit --pathways-*-args, --pathways-*-env, -colocated-python-sidecar-image, -head-np",
        "",
        "",
        (),
        "none",
    ),
    Row(
        "list --status",
        "Pending, Running, Succeeded, Failed, Suspended",
        "workload list",
        ("--state",),
        "queued, running, succeeded, failed",
    ),
    Row("list --name-contains", "substring", "workload list", ("--name-contains",)),
    Row(
        "logs JOB [-f]",
        "one job; no other flag (`logs.go:34`)",
        "workload logs",
        ("--follow",),
        "also --since, --worker, --slice, --timestamps (each line's time) and --merge (every "
        "worker's lines in one stream by time)",
    ),
    Row("cancel JOB", "deletes it", "workload delete", (), "`xcli workload delete W --cluster C`"),
)

ADDS = (
    "`xcli ssh` and `xcli scp` on every worker of a slice, streamed and prefixed",
    "Cloud TPU queued resources (`--provider queued-resource`) and the local emulator "
    "(`--provider local`: real sshd processes on loopback, real CPU JAX)",
    "`xcli workload status|goodput|wait`: per-worker state, goodput and badput, exit codes",
    "`xcli workload logs --merge --timestamps`: every worker's lines in one stream by time",
    "dry-runs that need no credentials, no gcloud and no kubectl, printing every request",
    "teams with their own namespace, queue and quota (`xcli team create`)",
    "`xcli cluster create`: the cluster, its node pools, Kueue and JobSet, in one plan",
)


def _row(*cells: str) -> str:
    return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"


def render() -> str:
    lines = [
        "# From Cluster Toolkit's `gcluster job` to xcli",
        "",
        "<!-- Generated by `python -m xcli.cli.gcluster_table > docs/from-gcluster.md`; do not "
        "edit by hand. -->",
        "",
        "Each flag of `gcluster job submit|list|logs|cancel` (GoogleCloudPlatform/cluster-toolkit",
        f"at commit {COMMIT}, `cmd/job/`) and the xcli command and flags that do the same.",
        "A test checks that every xcli flag named here exists on that command.",
        "",
        "| gcluster | default / rule | xcli | note |",
        "|---|---|---|---|",
    ]
    for row in ROWS:
        xcli = f"`xcli {row.command}` " + " ".join(f"`{f}`" for f in row.flags)
        lines.append(_row(f"`{row.gcluster}`", row.default, xcli.strip() if row.command
                          else "none", row.note))  # fmt: skip
    lines += ["", "## What xcli adds", ""]
    lines += [f"- {item}" for item in ADDS]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(render(), end="")
