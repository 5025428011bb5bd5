output "name" {
  description = "Node pool name."
  value       = google_container_node_pool.gpu.name
}

output "id" {
  description = "Node pool id."
  value       = google_container_node_pool.gpu.id
}
