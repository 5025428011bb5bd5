output "name" {
  description = "Cluster name."
  value       = google_container_cluster.this.name
}

output "id" {
  description = "Cluster id (projects/P/locations/L/clusters/C)."
  value       = google_container_cluster.this.id
}

output "location" {
  description = "Cluster location (region)."
  value       = google_container_cluster.this.location
}

output "endpoint" {
  description = "Control-plane endpoint."
  value       = google_container_cluster.this.endpoint
  sensitive   = true
}

output "ca_certificate" {
  description = "Cluster CA certificate (base64)."
  value       = google_container_cluster.this.master_auth[0].cluster_ca_certificate
  sensitive   = true
}
