variable "project_id" {
  description = "Project."
  type        = string
}

variable "region" {
  description = "Region (of the GKE control plane)."
  type        = string
}

variable "zone" {
  description = "Zone of the accelerators."
  type        = string
}

variable "cluster" {
  description = "Inputs of modules/gke-cluster; see its variables.tf."
  type        = any
}
