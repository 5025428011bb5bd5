variable "project_id" {
  description = "Project of the networks."
  type        = string
}

variable "region" {
  description = "Region of the subnets (the cluster's region)."
  type        = string
}

variable "description" {
  description = "Description of every resource (says which cluster owns it)."
  type        = string
}

variable "internal_source_ranges" {
  description = "Source ranges the internal-traffic firewall rules allow."
  type        = list(string)
  default     = ["192.168.0.0/16"]
}

variable "networks" {
  description = "The extra VPCs, in NIC order: name, MTU, network profile (RDMA VPCs only), the firewall rule's name (null on an RDMA VPC) and the subnets (name, CIDR)."
  type = list(object({
    name            = string
    mtu             = number
    network_profile = optional(string)
    firewall        = optional(string)
    subnets = list(object({
      name = string
      cidr = string
    }))
  }))
}
