output "queued_resources" {
  description = "Queued resource names, one per slice."
  value       = module.queued_resource.names
}

output "nodes" {
  description = "TPU node ids, one per slice, in slice order."
  value       = module.queued_resource.node_ids
}
