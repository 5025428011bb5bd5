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

  enable_multi_networking = var.cluster.enable_multi_networking
}

module "gpu_network" {
  source = "./modules/gpu-network"

  project_id             = var.project_id
  region                 = var.region
  description            = var.gpu_network.description
  internal_source_ranges = var.gpu_network.internal_source_ranges
  networks               = var.gpu_network.networks
}

module "gpu_node_pool" {
  source = "./modules/gpu-node-pool"

  project_id = var.project_id
  cluster    = module.cluster.name
  location   = module.cluster.location

  name                = var.gpu_node_pool.name
  zones               = var.gpu_node_pool.zones
  node_count          = var.gpu_node_pool.node_count
  machine_type        = var.gpu_node_pool.machine_type
  accelerator_type    = var.gpu_node_pool.accelerator_type
  accelerator_count   = var.gpu_node_pool.accelerator_count
  gpu_driver_version  = var.gpu_node_pool.gpu_driver_version
  spot                = var.gpu_node_pool.spot
  reservation         = var.gpu_node_pool.reservation
  flex_start          = var.gpu_node_pool.flex_start
  max_run_duration    = var.gpu_node_pool.max_run_duration
  queued_provisioning = var.gpu_node_pool.queued_provisioning
  auto_repair         = var.gpu_node_pool.auto_repair
  max_pods_per_node   = var.gpu_node_pool.max_pods_per_node
  autoscaling         = var.gpu_node_pool.autoscaling

  additional_node_networks = var.gpu_node_pool.additional_node_networks

  depends_on = [module.cluster, module.gpu_network]
}
