variable "project_id" {
  description = "Project of the cluster."
  type        = string
}

variable "name" {
  description = "Cluster name."
  type        = string
}

variable "region" {
  description = "Region of the cluster's control plane."
  type        = string
}

variable "zones" {
  description = "Zones the cluster's nodes may use."
  type        = list(string)
}

variable "release_channel" {
  description = "GKE release channel: RAPID, REGULAR or STABLE."
  type        = string
  default     = "REGULAR"

  validation {
    condition     = contains(["RAPID", "REGULAR", "STABLE"], var.release_channel)
    error_message = "release_channel must be RAPID, REGULAR or STABLE."
  }
}

variable "gke_version" {
  description = "Minimum control-plane version; null for the channel's default."
  type        = string
  default     = null
}

variable "network" {
  description = "VPC network."
  type        = string
  default     = "default"
}

variable "subnetwork" {
  description = "Subnetwork; null for the network's subnetwork in the region."
  type        = string
  default     = null
}

variable "system_pool_machine_type" {
  description = "Machine type of the CPU pool that runs the controllers."
  type        = string
  default     = "e2-standard-4"
}

variable "system_pool_node_count" {
  description = "VMs per zone in the CPU pool."
  type        = number
  default     = 1
}

variable "pod_range" {
  description = "Size of the cluster's Pod range as \"/N\" (GKE picks the addresses); null for GKE's default /14."
  type        = string
  default     = null

  validation {
    condition     = var.pod_range == null || can(regex("^/(9|1[0-9]|2[0-1])$", var.pod_range))
    error_message = "pod_range must be null or a size like \"/13\"."
  }
}

variable "labels" {
  description = "Labels of the cluster resource."
  type        = map(string)
  default     = {}
}

variable "enable_multi_networking" {
  description = "Multi-networking (GPUDirect clusters' additional node networks); immutable after creation."
  type        = bool
  default     = false
}

variable "cluster_autoscaling" {
  description = "Node auto-provisioning (null: off): the resource limits (resource_type, minimum, maximum; cpu, memory in GB and the accelerator), the zones and profile, and the OAuth scopes of the pools GKE makes."
  type = object({
    autoscaling_profile         = string
    auto_provisioning_locations = list(string)
    oauth_scopes                = list(string)
    resource_limits = list(object({
      resource_type = string
      minimum       = number
      maximum       = number
    }))
  })
  default = null
}
