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
}

module "tpu_node_pool" {
  source = "./modules/tpu-node-pool"

  project_id = var.project_id
  cluster    = module.cluster.name
  location   = module.cluster.location

  name_prefix      = var.tpu_node_pool.name_prefix
  num_slices       = var.tpu_node_pool.num_slices
  zones            = var.tpu_node_pool.zones
  machine_type     = var.tpu_node_pool.machine_type
  node_count       = var.tpu_node_pool.node_count
  tpu_topology     = var.tpu_node_pool.tpu_topology
  placement_type   = var.tpu_node_pool.placement_type
  spot             = var.tpu_node_pool.spot
  reservation      = var.tpu_node_pool.reservation
  flex_start       = var.tpu_node_pool.flex_start
  max_run_duration = var.tpu_node_pool.max_run_duration
  auto_repair      = var.tpu_node_pool.auto_repair
  autoscaling      = var.tpu_node_pool.autoscaling

  max_pods_per_node = var.tpu_node_pool.max_pods_per_node

  # The system pool first: the controllers must have somewhere to run.
  depends_on = [module.cluster]
}
