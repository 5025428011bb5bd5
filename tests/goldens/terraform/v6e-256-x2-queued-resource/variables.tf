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

variable "queued_resource" {
  description = "Inputs of modules/tpu-queued-resource; see its variables.tf."
  type        = any
}
