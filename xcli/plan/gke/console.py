"""Cloud Console links for a GKE cluster and a workload on it, printed after a live create.

The URL forms are XPK's (AI-Hypercomputer/xpk, commit 367c8382, PyPI xpk 1.16.0):
- cluster: `src/xpk/commands/cluster.py` l.215, ".../kubernetes/clusters/details/{location}/
  {cluster}/details?project={project}";
- the cluster's workloads: `src/xpk/commands/inspector.py` l.378, ".../kubernetes/workload/
  overview?project={project}&pageState=((gke%2F{location}%2F{cluster}))";
- a workload: `src/xpk/commands/workload.py` l.853, ".../kubernetes/service/{location}/{cluster}/
  {namespace}/{workload}/details?project={project}" (XPK's namespace is always `default`);
- its logs: `src/xpk/commands/workload.py` l.855-875, a Logs Explorer query on the containers of
  pod 0 of slice 0 (`resource.type="k8s_container"`, project, location, cluster, namespace, pod
  name prefix, `severity>=DEFAULT`), URL-quoted, `storageScope=project`, `duration=P1D`.
`location` is where the cluster lives: its region, for xcli's regional clusters.
"""

from __future__ import annotations

from urllib.parse import quote

CONSOLE = "https://console.cloud.google.com"


def cluster_links(project: str, location: str, cluster: str) -> dict[str, str]:
    return {
        "cluster": f"{CONSOLE}/kubernetes/clusters/details/{location}/{cluster}/details"
        f"?project={project}",
        "workloads": f"{CONSOLE}/kubernetes/workload/overview?project={project}"
        f"&pageState=((gke%2F{location}%2F{cluster}))",
    }


def workload_links(
    project: str, location: str, cluster: str, namespace: str, workload: str, pod_prefix: str
) -> dict[str, str]:
    """The workload's page and the logs of its first pod (`pod_prefix`: that pod's name up to
    the random suffix, e.g. run-1-slice-0-0-)."""
    query = "\n".join(
        [
            'resource.type="k8s_container"',
            f'resource.labels.project_id="{project}"',
            f'resource.labels.location="{location}"',
            f'resource.labels.cluster_name="{cluster}"',
            f'resource.labels.namespace_name="{namespace}"',
            f'resource.labels.pod_name:"{pod_prefix}"',
            "severity>=DEFAULT",
        ]
    )
    return {
        "workload": f"{CONSOLE}/kubernetes/service/{location}/{cluster}/{namespace}/{workload}"
        f"/details?project={project}",
        "logs": f"{CONSOLE}/logs/query;query={quote(query, safe='')};storageScope=project;"
        f"duration=P1D?project={project}",
    }
