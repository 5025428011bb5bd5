"""`xcli cluster preload-image IMAGE --cluster C`: pre-pull an image on every accelerator node."""

from __future__ import annotations

from typing import Any

import click

from xcli.cli import complete
from xcli.cli.common import Common, change_options


@click.command("preload-image")
@click.argument("image")
@click.option("--cluster", required=True, help="GKE cluster.", shell_complete=complete.clusters)
@click.option(
    "--timeout",
    default="30m",
    show_default=True,
    metavar="D",
    help="Give up when not every node has the image after D.",
)
@click.option("--keep", is_flag=True, help="Keep the DaemonSet: nodes added later pull too.")
@change_options
def preload_image(image: str, cluster: str, timeout: str, keep: bool, common: Common) -> int:
    """Pull IMAGE onto every TPU/GPU node of a GKE cluster before a workload needs it.

    A DaemonSet pulls the image on every accelerator node; progress shows how many nodes have
    it; once all do, the DaemonSet is deleted (unless --keep). For new node pools, a secondary
    boot disk (`cluster create --secondary-boot-disk`) preloads images without this step.

    \b
    Examples:
      xcli cluster preload-image us-docker.pkg.dev/p/r/trainer:1 --cluster demo
      xcli cluster preload-image us-docker.pkg.dev/p/r/trainer:1 --cluster demo --dry-run
    """
    from xcli.cli.common import run_plan
    from xcli.cli.deps import current
    from xcli.formats import image_reference
    from xcli.plan.cluster import ClusterRef
    from xcli.providers.gke.preload import plan_preload
    from xcli.spec import check_duration, check_name
    from xcli.workload.jobset.live import Live
    from xcli.workload.jobset.plan import gke_cluster_path

    check_name(cluster, "cluster", 40)
    image_reference(image)
    seconds = check_duration(timeout, "--timeout", 60, 24 * 3600)
    where = gke_cluster_path(common.project, common.zone, cluster)
    plan = plan_preload(image, cluster, where, seconds, keep)
    gateways = current().workload_gateways
    live = gateways.live if gateways is not None and gateways.live is not None else Live()

    def handlers() -> dict[str, Any]:
        from xcli.gateways.kube_handlers import KubeHandlers
        from xcli.gateways.kube_rollout import rollout_handler

        api = live.api(ClusterRef(cluster, common.project, common.zone, "gke"))
        kube = KubeHandlers(lambda _where: api, sleep=live.sleep, clock=live.clock)
        rollout = rollout_handler(lambda _where: api, sleep=live.sleep, clock=live.clock)
        return {**kube.handlers(), "k8s_rollout": rollout}

    code = run_plan(common, plan, handlers)
    if not common.dry_run and common.output == "text":
        click.echo(f"every accelerator node of cluster {cluster} has {image}", err=True)
    return code
