variable "project_id" {
  description = "Project of the queued resources."
  type        = string
}

variable "zone" {
  description = "Zone of the TPU slices."
  type        = string
}

variable "name" {
  description = "Queued resource (and node) name; <name>-<i> for each slice of a multislice request."
  type        = string
}

variable "num_slices" {
  description = "Number of slices: one queued resource each."
  type        = number

  validation {
    condition     = var.num_slices >= 1 && floor(var.num_slices) == var.num_slices
    error_message = "num_slices must be a whole number, at least 1."
  }
}

variable "accelerator_type" {
  description = "Cloud TPU accelerator type, e.g. v6e-256."
  type        = string
}

variable "runtime_version" {
  description = "TPU VM software version, e.g. v2-alpha-tpuv6e."
  type        = string

  validation {
    condition     = length(var.runtime_version) > 0
    error_message = "runtime_version must not be empty."
  }
}

variable "description" {
  description = "Description of the TPU nodes."
  type        = string
  default     = null
}

variable "network" {
  description = "VPC network; null for the project's default network."
  type        = string
  default     = null
}

variable "subnetwork" {
  description = "Subnetwork; null for the network's subnetwork in the region."
  type        = string
  default     = null
}

variable "enable_external_ips" {
  description = "Give the TPU VMs external IP addresses."
  type        = bool
  default     = true
}
