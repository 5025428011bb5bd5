"""XPK's command-line vocabulary and the fate of each name on xcli's command line (data only).

Source of the flag lists: the `xpk` 1.16.0 wheel on PyPI, whose parser is
AI-Hypercomputer/xpk at commit 367c838253bea41e7d7716145ad6513f44c1a21e plus the global
`--namespace` (src/xpk/parser/common.py: add_shared_arguments; cluster.py, workload.py,
storage.py, inspector.py, info.py, version.py under src/xpk/parser/). A trailing `=` marks a
flag that takes a value; `A|B` is one flag with two spellings. Flags behind XPK's feature
flags are included (`--sub-slicing`, `--dependency-auto-download`).

`tests/cli/test_xpk_vocabulary.py` holds it complete both ways, and `docs/from-xpk.md` is
generated from it (`python -m xcli.cli.xpk_table`).
"""

from __future__ import annotations

from xcli.cli.xpk_fate import (
    CommandFate,
    Fate,
    alias,
    gcloud,
    ignored,
    many,
    mapped,
    planned,
    positional,
    refused,
    same,
)

# XPK's shared arguments: every command takes them (src/xpk/parser/common.py).
GLOBAL = (
    "--project= --project-number= --zone= --namespace= --dry-run|--no-dry-run "
    "--skip-validation|--no-skip-validation --quiet|--no-quiet "
    "--sandbox-kubeconfig|--no-sandbox-kubeconfig "
    "--dependency-auto-download|--no-dependency-auto-download"
)

_CAPACITY = "--on-demand --reservation= --spot --flex"
_STORAGE_DRIVERS = (
    "--enable-gcsfuse-csi-driver --enable-gcpfilestore-csi-driver "
    "--enable-parallelstore-csi-driver --enable-pd-csi-driver --enable-lustre-csi-driver "
    "--enable-legacy-lustre-port"
)
_SLICING = "--sub-slicing --super-slicing --num-cubes="
_NAP = "--enable-autoprovisioning --autoprovisioning-min-chips= --autoprovisioning-max-chips="
_VERTEX = "--create-vertex-tensorboard --tensorboard-region= --tensorboard-name="
_CREATE_COMMON = (
    "--cluster= --tpu-type= --host-maintenance-interval= --gke-version= --num-slices= "
    "--pathways-gce-machine-type= --default-pool-cpu-machine-type= --managed-mldiagnostics "
    "--cluster-cpu-machine-type= --default-pool-cpu-num-nodes= --custom-cluster-arguments= "
    "--custom-nodepool-arguments= --force --custom-tpu-nodepool-arguments= --private "
    "--authorized-networks= --enable-private-endpoint --private-endpoint-subnetwork= "
    "--enable-master-global-access --enable-workload-identity --adapt-from-ct "
    f"--ignore-nodepool-creation-errors {_STORAGE_DRIVERS} {_SLICING} {_NAP} {_CAPACITY} "
    f"{_VERTEX} --enable-mtc --mtc-ramdisk-size= --mtc-gcs-bucket= --mtc-toleration-key= "
    "--memory-limit= --cpu-limit="
)
_WORKLOAD_COMMON = (
    "--command= --tpu-type= --storage= --workload= --cluster= --docker-name= "
    "--use-parallel-containers|--no-use-parallel-containers --output-manifest-file= "
    "--num-slices= --priority= --max-restarts= --ttl-seconds-after-finished= "
    "-tgps|--termination-grace-period-seconds= --colocated-python-sidecar-image= "
    "--enable-debug-logs --env-file= --env= --base-docker-image= --script-dir= "
    "--docker-image= --docker-image-pull-secret= --use-vertex-tensorboard --experiment-name= "
    f"{_CAPACITY}"
)
_STORAGE_VOLUME = (
    "<name>= --type= --cluster= --auto-mount= --mount-point= --readonly= --instance= --vol= "
    "--access-mode= --manifest= --mount-options="
)

# XPK command -> its own flags (besides GLOBAL).
XPK_FLAGS: dict[str, str] = {
    "cluster create": (
        f"{_CREATE_COMMON} --device-type= --num-nodes= --enable-pathways "
        "--cluster-state-gcs-bucket="
    ),
    "cluster create-pathways": _CREATE_COMMON,
    # src/xpk/parser/cluster.py set_cluster_create_ray_parser: create's groups without slicing
    # or auto-provisioning (create-ray sets them off), with --device-type and --ray-version
    "cluster create-ray": (
        _CREATE_COMMON.replace(f" {_SLICING} {_NAP} ", " ")
        + " --device-type= --enable-pathways --ray-version="
    ),
    "cluster adapt": (
        "--cluster= --tpu-type= --device-type= --num-nodes= --enable-workload-identity "
        f"--num-slices= --ignore-nodepool-creation-errors {_STORAGE_DRIVERS} --memory-limit= "
        f"--cpu-limit= {_SLICING} {_CAPACITY} {_NAP} {_VERTEX}"
    ),
    "cluster delete": "--cluster= --cluster-state-gcs-bucket= --force",
    "cluster describe": "--cluster=",
    "cluster list": "",
    "workload create": (
        f"{_WORKLOAD_COMMON} --device-type= --num-nodes= --scheduler= --ramdisk-directory= "
        "--mtc-enabled --debug-dump-gcs= --deploy-stacktrace-sidecar --use-pathways "
        "--restart-on-exit-codes="
    ),
    "workload create-pathways": (
        f"{_WORKLOAD_COMMON} --headless --proxy-server-image= --server-image= "
        "--pathways-gcs-location= --custom-pathways-server-args= "
        "--custom-pathways-proxy-server-args= --custom-pathways-worker-args= "
        "--elastic-slices= --max-slice-restarts="
    ),
    "workload delete": "--cluster= --workload= --filter-by-job= --filter-by-status= --force",
    "workload list": (
        "--cluster= --filter-by-status= --filter-by-job= --wait-for-job-completion= --timeout="
    ),
    "storage attach": (
        f"{_STORAGE_VOLUME} --enable-legacy-lustre-port --size= --bucket= "
        "--prefetch-metadata|--no-prefetch-metadata"
    ),
    "storage create": f"{_STORAGE_VOLUME} --size= --tier=",
    "storage delete": "<name>= --cluster= --force|-f",
    "storage detach": "<name>= --cluster=",
    "storage list": "--cluster=",
    "inspector": "--cluster= --workload= --print-to-terminal",
    "info": "--cluster= --clusterqueue --localqueue",
    "cluster cacheimage": "--cluster= --docker-image= --tpu-type= --device-type=",
    "version": "",
}

_QUEUE_USAGE = "xcli team list --cluster C shows each team's queue, quota and use"

COMMANDS: dict[str, CommandFate] = {
    **{
        name: same(*name.split())
        for name in XPK_FLAGS
        if "pathways" not in name and name != "cluster create-ray"
    },
    "cluster create-pathways": same("cluster", "create", "--pathways"),
    "workload create-pathways": same("workload", "create", "--pathways"),
    "inspector": same("cluster", "inspect"),
    "info": same("team", "list"),  # each queue's quota and use, as `xpk info` lists them
    "version": same("--version"),
    # XPK commands outside the brief's list, so that they too get a hint, not a guess
    # XPK's create-ray is create plus the Ray Operator add-on and a RayCluster (plan/gke/ray.py)
    "cluster create-ray": same("cluster", "create"),
    "cluster cacheimage": same("cluster", "preload-image"),
}

_GCLOUD = (
    "xcli sends API requests, not gcloud lines: the gcloud flags it has an equal for are taken "
    "(docs/from-xpk.md lists them); for anything else write the requests with --terraform DIR "
    "and edit the folder"
)
_DRIVER = "xcli turns the {0} CSI driver on when `xcli storage attach --type {1}` needs it"
_NOT_TOOLS = "xcli calls the APIs directly: it runs and downloads no gcloud or kubectl"
_PATHWAYS_CAPACITY = refused(
    "a Pathways workload runs on its cluster's capacity (cluster create --on-demand|--spot|"
    "--reservation|--flex-start)"
)
# XPK's workload side: an Experiment, then these variables (src/xpk/core/docker_resources.py
# l.235-238 at 367c838253be)
_NO_VERTEX = refused(
    "xcli's Pathways workloads create no Experiment yet (JobSet workloads do: "
    "--vertex-tensorboard); pass what XPK sets: --env UPLOAD_DATA_TO_TENSORBOARD=True "
    "--env TENSORBOARD_PROJECT=P --env TENSORBOARD_REGION=R --env TENSORBOARD_NAME=N "
    "--env EXPERIMENT_NAME=E"
)
_VERTEX_AT_CREATE = refused(
    "`xcli cluster create --vertex-tensorboard [--tensorboard-region R] [--tensorboard-name N]` "
    "makes the Tensorboard; `cluster adapt` does not"
)
_NO_MTC = refused(
    "xcli has no multi-tier checkpointing; `workload create --checkpoint-dir gs://B/P` "
    "gives every worker a checkpoint folder"
)
_NAP_ADAPT = refused(
    "`xcli cluster adapt` sets up a cluster's existing pools; for node auto-provisioning use "
    "`xcli cluster create --enable-autoprovisioning` (docs/tpu.md)"
)
# v6e sub-slicing is not settled by a source xcli can follow: XPK keeps it behind
# SUB_SLICING_ENABLED (off by default; src/xpk/utils/feature_flags.py) and selects Topology levels
# cloud.google.com/gke-tpu-slice-<topology>-id that no GKE document says GKE puts on v6e nodes
# (docs/tpu.md, "Explicit pools, node auto-provisioning or dynamic slicing?").
_NO_SUB_SLICING = refused(
    "v6e sub-slicing is not settled (docs/tpu.md says why): create the cluster with the "
    "--tpu-type its workloads use; TPU7x clusters take --super-slicing"
)
_ADAPT_SLICING = refused(
    "xcli cluster create --super-slicing --num-cubes N makes a dynamic-slicing cluster; adapt "
    "does not change another tool's pools"
)
_PATHWAYS_SLICING = refused(
    "xcli's Pathways workers need one node pool per slice: xcli cluster create --super-slicing "
    "runs TPU7x JobSets of any shape, without --pathways"
)
_PATHWAYS = planned("xcli's Pathways workloads take the flags of docs/pathways.md")
_PATHWAYS_IMAGES = refused(
    "xcli pins both Pathways images with --pathways-version TAG (docs/pathways.md)"
)
_KUEUE_SIZE = ignored("xcli sizes the Kueue and JobSet controllers from the cluster's node count")
_STATE_BUCKET = mapped("--state-bucket", note="with --terraform DIR: the Terraform state bucket")
_SAY_YES = mapped("--yes", note="XPK's --force only skips the question, as --yes does")

# Flag -> fate, for every XPK command unless FATES_BY_COMMAND says otherwise.
FATES: dict[str, Fate] = {
    # XPK's shared arguments
    "--project": alias(),
    "--project-number": ignored("xcli reads the project number when a plan needs it"),
    "--zone": alias(),
    "--namespace": alias(),
    "--dry-run": alias(),
    "--no-dry-run": ignored("the default", silent=True),
    "--skip-validation": ignored(_NOT_TOOLS + ", so it has no tools to validate"),
    "--no-skip-validation": ignored("the default", silent=True),
    "--quiet": alias(otherwise=ignored("xcli asks nothing here", silent=True)),
    "--no-quiet": ignored("the default", silent=True),
    "--sandbox-kubeconfig": ignored("xcli never reads or writes a kubeconfig"),
    "--no-sandbox-kubeconfig": ignored("the default", silent=True),
    "--dependency-auto-download": ignored(_NOT_TOOLS),
    "--no-dependency-auto-download": ignored(_NOT_TOOLS, silent=True),
    # clusters
    "--cluster": alias(),
    "--tpu-type": alias(),
    "--device-type": alias(),
    "--num-slices": alias(),
    "--num-nodes": alias(),
    "--on-demand": alias(otherwise=ignored("on-demand is what xcli assumes", silent=True)),
    "--spot": alias(),
    "--reservation": alias(),
    "--flex": mapped("--flex-start"),
    "--gke-version": alias(),
    "--host-maintenance-interval": refused(
        "xcli leaves the TPU pools' maintenance interval to GKE's default; no flag for it yet"
    ),
    "--default-pool-cpu-machine-type": mapped("--cpu-machine-type"),
    "--cluster-cpu-machine-type": mapped("--cpu-machine-type", note="XPK: deprecated name"),
    "--default-pool-cpu-num-nodes": mapped("--cpu-num-nodes"),
    # XPK hands these to `gcloud container clusters|node-pools create`
    # (src/xpk/core/cluster.py, src/xpk/core/nodepool.py at 367c838253be)
    # the equal of each gcloud flag: `gcloud container clusters create`'s reference
    # (https://cloud.google.com/sdk/gcloud/reference/container/clusters/create)
    "--custom-cluster-arguments": gcloud(
        {
            "--network": "--network",
            "--subnetwork": "--subnetwork",
            "--cluster-version": "--gke-version",
            "--release-channel": "--release-channel",
            "--master-ipv4-cidr": "--master-ipv4-cidr",
            "--master-authorized-networks": "--authorized-networks",
            "--private-endpoint-subnetwork": "--private-endpoint-subnetwork",
        },
        _GCLOUD,
        switches={
            "--enable-private-nodes": "--private",
            "--enable-private-endpoint": "--private-endpoint",
            "--enable-ip-alias": "",  # xcli's clusters are VPC-native (useIpAliases)
            "--enable-master-authorized-networks": "",  # implied by the networks' list
        },
    ),
    "--custom-nodepool-arguments": gcloud({}, _GCLOUD),
    "--custom-tpu-nodepool-arguments": gcloud({}, _GCLOUD),
    "--force": alias(
        "xcli: replace node pools of another shape, asking first unless --yes "
        "(XPK's --force also skipped the question)"
    ),
    "--private": alias(),
    # XPK: nargs='+', action='extend', and "--private is automatically enabled because
    # --authorized-networks was set" (src/xpk/parser/cluster.py:720-734,
    # src/xpk/commands/cluster.py:241-263 at 367c838253be)
    "--authorized-networks": many(
        "--authorized-networks",
        implies=("--private",),
        note="--private is automatically enabled because --authorized-networks was set",
    ),
    "--enable-private-endpoint": mapped("--private-endpoint"),
    # XPK: implies --enable-private-endpoint (src/xpk/commands/cluster.py:220-228), as xcli's
    "--private-endpoint-subnetwork": alias(),
    "--enable-master-global-access": refused(
        "xcli's private endpoint is the DNS endpoint, reachable from every region"
    ),
    "--enable-workload-identity": ignored("Workload Identity is always on in xcli's clusters"),
    "--adapt-from-ct": refused(
        "`xcli cluster adapt --cluster C --device-type T [--pathways]` sets up a Cluster "
        "Toolkit cluster"
    ),
    "--ignore-nodepool-creation-errors": refused(
        "xcli keeps the pools that were made and names those that failed; run the same "
        "command again to finish"
    ),
    "--enable-gcsfuse-csi-driver": ignored(_DRIVER.format("Cloud Storage FUSE", "gcsfuse")),
    "--enable-gcpfilestore-csi-driver": ignored(_DRIVER.format("Filestore", "filestore")),
    "--enable-parallelstore-csi-driver": ignored(_DRIVER.format("Parallelstore", "parallelstore")),
    "--enable-pd-csi-driver": ignored(_DRIVER.format("Persistent Disk", "pd")),
    "--enable-lustre-csi-driver": ignored(_DRIVER.format("Managed Lustre", "lustre")),
    "--enable-legacy-lustre-port": mapped(
        "--lustre-legacy-port", note="xcli turns the Lustre driver on with it at create"
    ),
    "--cluster-state-gcs-bucket": _STATE_BUCKET,
    "--enable-pathways": mapped("--pathways"),
    "--pathways-gce-machine-type": mapped("--pathways-cpu-machine-type"),
    "--ray-version": alias(),  # only create-ray has it (plan/gke/ray.py)
    "--sub-slicing": _NO_SUB_SLICING,
    "--super-slicing": alias(),
    "--num-cubes": alias(),
    # node auto-provisioning (issue 38): the same names (xcli/providers/gke/nap.py)
    "--enable-autoprovisioning": alias(),
    "--autoprovisioning-min-chips": alias(),
    "--autoprovisioning-max-chips": alias(),
    # XPK creates it through cloud-accelerator-diagnostics; xcli through aiplatform.v1's REST
    # API (xcli/plan/vertex.py)
    "--create-vertex-tensorboard": mapped("--vertex-tensorboard"),
    "--tensorboard-region": alias(),
    "--tensorboard-name": alias(),
    # XPK: the cluster field on GKE 1.35.0-gke.3065000+, and the nodes' roles
    # (src/xpk/commands/cluster.py l.561-582, l.1407-1410)
    "--managed-mldiagnostics": mapped("--ml-diagnostics"),
    "--enable-mtc": _NO_MTC,
    "--mtc-ramdisk-size": _NO_MTC,
    "--mtc-gcs-bucket": _NO_MTC,
    "--mtc-toleration-key": _NO_MTC,
    "--memory-limit": _KUEUE_SIZE,
    "--cpu-limit": _KUEUE_SIZE,
    # workloads
    "--workload": alias(),
    "--command": alias(),
    "--docker-image": alias(),
    "--storage": alias(),
    "--scheduler": alias(),
    "--priority": alias(),
    "--max-restarts": alias(),
    "--restart-on-exit-codes": alias(),
    "--env": alias(),
    "--env-file": alias(),
    "--output-manifest-file": alias(),
    "--ttl-seconds-after-finished": mapped("--ttl-after-finished", suffix="s"),
    "-tgps": mapped("--termination-grace-period", suffix="s"),
    "--termination-grace-period-seconds": mapped("--termination-grace-period", suffix="s"),
    "--base-docker-image": alias(),  # built and pushed without Docker (issue 24)
    "--script-dir": alias(),
    "--docker-name": alias(),
    "--docker-image-pull-secret": alias(),
    "--use-parallel-containers": refused("xcli runs one container per VM"),
    "--no-use-parallel-containers": ignored("the default", silent=True),
    # XPK prefixes the command with these exports (src/xpk/core/docker_container.py:119-126
    # at 367c838253be)
    "--enable-debug-logs": mapped(
        *("--env", "TPU_STDERR_LOG_LEVEL=0", "--env", "TPU_MIN_LOG_LEVEL=0"),
        *("--env", "TF_CPP_MIN_LOG_LEVEL=0", "--env", "TPU_VMODULE=real_program_continuator=1"),
    ),
    "--debug-dump-gcs": refused(
        "--env XLA_FLAGS=--xla_dump_to=DIR with DIR on a `--storage` gcsfuse mount"
    ),
    # XPK: a sidecar that forwards the stack traces the workload writes to /tmp/debugging to
    # Cloud Logging (src/xpk/parser/workload.py:175-182 at 367c838253be)
    "--deploy-stacktrace-sidecar": ignored(
        "xcli adds no sidecar: `xcli workload stacks W --cluster C` dumps every worker's "
        "Python stacks when you ask (py-spy), grouped by where they are"
    ),
    "--use-vertex-tensorboard": mapped("--vertex-tensorboard"),
    "--experiment-name": alias(),
    "--ramdisk-directory": _NO_MTC,
    "--mtc-enabled": _NO_MTC,
    "--use-pathways": mapped("--pathways"),
    "--colocated-python-sidecar-image": _PATHWAYS,
    "--headless": alias(),
    "--proxy-server-image": _PATHWAYS_IMAGES,
    "--server-image": _PATHWAYS_IMAGES,
    "--pathways-gcs-location": alias(),
    "--custom-pathways-server-args": _PATHWAYS,
    "--custom-pathways-proxy-server-args": _PATHWAYS,
    "--custom-pathways-worker-args": _PATHWAYS,
    "--elastic-slices": alias(),
    "--max-slice-restarts": alias(),
    "--filter-by-job": refused("name the workload, or filter `xcli workload list -o json`"),
    # `workload list --wait-for-job-completion W` is `workload wait W` (xpk_names.py); alone:
    "--wait-for-job-completion": refused("`xcli workload wait W --cluster C [--timeout D]`"),
    "--timeout": refused("with --wait-for-job-completion: `xcli workload wait W --timeout D`"),
    # storage
    "<name>": alias(),
    "--type": mapped("--type", values={"gcpfilestore": "filestore"}),
    "--auto-mount": mapped("--auto-mount", switch=True),
    "--readonly": mapped("--readonly", switch=True),
    "--mount-point": alias(),
    "--mount-options": alias(),
    "--instance": alias(),
    "--bucket": alias(),
    "--size": alias(),
    "--tier": alias(),
    "--vol": refused("xcli names the Filestore share vol1 and reads it back on attach"),
    # XPK's choices and default (src/xpk/parser/storage.py:147-162 at 367c838253be)
    "--access-mode": mapped(
        "--readonly",
        values={"ReadWriteMany": "", "ReadOnlyMany": "true"},
        strict=True,
        switch=True,
        note="xcli's Filestore volumes are ReadWriteMany (--readonly: ReadOnlyMany)",
    ),
    "--manifest": refused(
        "xcli writes the PersistentVolume and claim from --instance or --disk; `xcli storage "
        "attach --manifest FILE` applies yours"
    ),
    "--prefetch-metadata": ignored("xcli's gcsfuse options prefetch metadata already"),
    "--no-prefetch-metadata": refused(
        "xcli's gcsfuse volumes always prefetch metadata on mount (gcsfuseMetadataPrefetchOnMount)"
    ),
    # inspector, info
    "--print-to-terminal": ignored(
        "xcli prints the bundle's summary; the bundle itself is the archive (--archive)"
    ),
    "--clusterqueue": ignored("xcli team list shows the ClusterQueue and every LocalQueue"),
    "--localqueue": ignored("xcli team list shows the ClusterQueue and every LocalQueue"),
}

_LEGACY_LUSTRE = refused(
    "the Lustre driver's port is a cluster setting: `xcli cluster create --lustre-legacy-port` "
    "turns the driver on with port 6988 when the cluster is made"
)

_STATES = {"SUCCESSFUL": "succeeded", "FAILED": "failed"}

# (XPK command, flag) -> fate, where a flag means something else on that command.
FATES_BY_COMMAND: dict[tuple[str, str], Fate] = {
    ("cluster delete", "--force"): _SAY_YES,
    ("workload delete", "--force"): _SAY_YES,
    ("storage delete", "--force"): _SAY_YES,
    ("storage delete", "-f"): _SAY_YES,
    ("cluster delete", "--cluster-state-gcs-bucket"): refused(
        "`xcli cluster delete --terraform DIR` destroys with the state DIR names"
    ),
    ("cluster adapt", "--flex"): mapped("--flex-start"),
    # the whole command becomes `cluster adapt` (xpk_names.py _adapt_form): XPK's flag skips
    # the cluster and node pools and runs its adapt's steps (src/xpk/commands/cluster.py l.376-385)
    ("cluster create", "--adapt-from-ct"): mapped(
        "cluster adapt", note="the command becomes `xcli cluster adapt`; its other flags follow"
    ),
    ("cluster create-ray", "--adapt-from-ct"): refused(
        "`xcli cluster adapt` adds no RayCluster: adapt the cluster, or create one with "
        "`xcli cluster create --ray-version V`"
    ),
    ("workload create-pathways", "--use-vertex-tensorboard"): _NO_VERTEX,
    ("workload create-pathways", "--experiment-name"): _NO_VERTEX,
    ("cluster adapt", "--create-vertex-tensorboard"): _VERTEX_AT_CREATE,
    ("cluster adapt", "--tensorboard-region"): _VERTEX_AT_CREATE,
    ("cluster adapt", "--tensorboard-name"): _VERTEX_AT_CREATE,
    ("cluster adapt", "--enable-legacy-lustre-port"): _LEGACY_LUSTRE,
    ("storage attach", "--enable-legacy-lustre-port"): _LEGACY_LUSTRE,
    ("cluster adapt", "--enable-autoprovisioning"): _NAP_ADAPT,
    ("cluster adapt", "--autoprovisioning-min-chips"): _NAP_ADAPT,
    ("cluster adapt", "--autoprovisioning-max-chips"): _NAP_ADAPT,
    # adapt sets up a cluster some other tool made: its pools are already there
    ("cluster adapt", "--super-slicing"): _ADAPT_SLICING,
    ("cluster adapt", "--num-cubes"): _ADAPT_SLICING,
    ("cluster create-pathways", "--super-slicing"): _PATHWAYS_SLICING,
    ("cluster create-pathways", "--num-cubes"): _PATHWAYS_SLICING,
    ("workload create", "--device-type"): alias(),
    ("storage attach", "--vol"): ignored("xcli reads the share name from the instance"),
    ("storage attach", "--manifest"): alias(
        "the file's PersistentVolume and claim are applied as written, with xcli's record"
    ),
    ("storage create", "--vol"): mapped("--share"),
    ("workload list", "--filter-by-job"): mapped("--name-contains"),
    ("info", "--dry-run"): ignored("this command only reads, so it runs as it is"),
    ("info", "--namespace"): ignored("xcli team list shows the queues of every namespace"),
    ("cluster cacheimage", "--namespace"): ignored("the DaemonSet runs in xcli's own namespace"),
    ("cluster cacheimage", "--docker-image"): positional(),
    ("cluster cacheimage", "--tpu-type"): ignored("xcli's DaemonSet pulls on every node"),
    ("cluster cacheimage", "--device-type"): ignored("xcli's DaemonSet pulls on every node"),
    ("storage attach", "--size"): ignored(
        "xcli reads the size from the instance (a bucket's volume size is nominal)"
    ),
    # XPK's `workload delete` without --workload deletes every workload its filters keep:
    # --filter-by-job a part of the name, --filter-by-status a state (src/xpk/commands/
    # workload.py:939-983, src/xpk/core/workload.py:274-323 at 367c838253be)
    ("workload delete", "--filter-by-job"): mapped("--name-contains"),
    ("workload delete", "--filter-by-status"): mapped(
        "--state",
        values={
            **_STATES,
            "RUNNING": "running",
            "QUEUED": "queued",
            "FINISHED": "finished",
            "EVERYTHING": "",
        },
        strict=True,
        note="xcli's states are its JobSets' (queued: suspended until Kueue admits it)",
    ),
    ("workload list", "--filter-by-status"): mapped(
        "--state",
        values={**_STATES, "RUNNING": "running", "QUEUED": "queued", "EVERYTHING": ""},
        strict=True,
        note="FINISHED: list --state succeeded, then --state failed",
    ),
    ("cluster list", "--namespace"): ignored("a cluster has no namespace", silent=True),
    **{
        (command, "--namespace"): refused(
            "a cluster has no namespace; workloads take --namespace, and "
            "`xcli team create` makes one with its queue"
        )
        for command in (
            "cluster create",
            "cluster create-pathways",
            "cluster create-ray",
            "cluster adapt",
            "cluster delete",
            "cluster describe",
        )
    },
    **{
        (command, "--dry-run"): ignored(
            "this command only reads, so it runs as it is (xcli's --dry-run is on commands "
            "that change something)"
        )
        for command in ("cluster describe", "cluster list", "workload list", "storage list")
    },
    # node auto-provisioning (issue 38): a workload chooses the capacity GKE provisions it on
    ("workload create", "--on-demand"): alias(),
    ("workload create", "--spot"): alias(),
    ("workload create", "--reservation"): alias(),
    **{
        ("workload create-pathways", flag): _PATHWAYS_CAPACITY
        for flag in ("--on-demand", "--spot", "--reservation")
    },
    # XPK's workload --flex: flex-start capacity (for node auto-provisioning, src/xpk/core/
    # capacity.py l.94-96 at 367c838253be); xcli's workload asks its cluster's flex-start pools
    **{
        (command, "--flex"): mapped(
            "--flex-start",
            note="the cluster must have flex-start pools (cluster create --flex); xcli has no "
            "flex-start through node auto-provisioning",
        )
        for command in ("workload create", "workload create-pathways")
    },
}


def flags_of(command: str) -> dict[str, bool]:
    """An XPK command's flags, every spelling: flag -> takes a value."""
    out: dict[str, bool] = {}
    for word in f"{GLOBAL} {XPK_FLAGS[command]}".split():
        takes = word.endswith("=")
        for name in word.rstrip("=").split("|"):
            out[name] = takes
    return out


def fate_of(command: str, flag: str) -> Fate:
    """The fate of `flag` on XPK's `command` (KeyError: not an XPK flag of it)."""
    if flag not in flags_of(command):
        raise KeyError(flag)
    return FATES_BY_COMMAND.get((command, flag)) or FATES[flag]
