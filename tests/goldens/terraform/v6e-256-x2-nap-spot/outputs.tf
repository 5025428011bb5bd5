output "cluster_name" {
  description = "GKE cluster name."
  value       = module.cluster.name
}

output "cluster_location" {
  description = "GKE cluster location (region)."
  value       = module.cluster.location
}

output "node_pools" {
  description = "Accelerator node pools, in slice order."
  value       = [] # none: node auto-provisioning makes them when workloads ask
}
