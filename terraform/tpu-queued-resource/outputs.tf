output "names" {
  description = "Queued resource names, one per slice."
  value       = google_tpu_v2_queued_resource.slice[*].name
}

output "node_ids" {
  description = "TPU node ids, one per slice, in slice order."
  value       = local.names
}
