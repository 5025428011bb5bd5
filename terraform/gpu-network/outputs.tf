output "networks" {
  description = "Names of the VPCs."
  value       = [for net in google_compute_network.gpu : net.name]
}

output "subnets" {
  description = "Names of the subnets."
  value       = [for sub in google_compute_subnetwork.gpu : sub.name]
}
