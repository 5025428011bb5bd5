output "names" {
  description = "Node pool names, one per slice, in slice order."
  value       = google_container_node_pool.slice[*].name
}

output "ids" {
  description = "Node pool ids, one per slice."
  value       = google_container_node_pool.slice[*].id
}
