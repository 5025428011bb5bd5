# Written by xcli. The values are in terraform.tfvars.json, the logic in
# ./modules (copied from xcli's terraform/ folder, so this folder is self-contained).

module "queued_resource" {
  source = "./modules/tpu-queued-resource"

  project_id          = var.project_id
  zone                = var.zone
  name                = var.queued_resource.name
  num_slices          = var.queued_resource.num_slices
  accelerator_type    = var.queued_resource.accelerator_type
  runtime_version     = var.queued_resource.runtime_version
  network             = var.queued_resource.network
  subnetwork          = var.queued_resource.subnetwork
  enable_external_ips = var.queued_resource.enable_external_ips
  description         = var.queued_resource.description
}
