"""`xcli cluster preload-image IMAGE --cluster C`: pre-pull an image on every accelerator node."""

from __future__ import annotations

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
    from xcli.app import cluster_ops as use_case
    from xcli.cli.wiring import deps

    use_case.preload_image(
        use_case.PreloadRequest(image, cluster, timeout, keep, common), deps(common)
    )
    if not common.dry_run and common.output == "text":
        click.echo(f"every accelerator node of cluster {cluster} has {image}", err=True)
    return 0
