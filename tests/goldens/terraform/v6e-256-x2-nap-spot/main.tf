# Written by xcli. The values are in terraform.tfvars.json, the logic in
# ./modules (copied from xcli's terraform/ folder, so this folder is self-contained).

module "cluster" {
  source = "./modules/gke-cluster"

  project_id      = var.project_id
  region          = var.region
  name            = var.cluster.name
  zones           = var.cluster.zones
  release_channel = var.cluster.release_channel
  gke_version     = var.cluster.gke_version
  labels          = var.cluster.labels
  pod_range       = var.cluster.pod_range

  cluster_autoscaling = var.cluster.cluster_autoscaling
}
