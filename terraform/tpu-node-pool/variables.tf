variable "project_id" {
  description = "Project of the cluster."
  type        = string
}

variable "cluster" {
  description = "Name or id of the GKE cluster the pools belong to."
  type        = string
}

variable "location" {
  description = "Location of the cluster (its region)."
  type        = string
}

variable "zones" {
  description = "Zones of the pools' nodes; a multi-host slice needs exactly one."
  type        = list(string)
}

variable "name_prefix" {
  description = "Pools are named <name_prefix>-<slice index>."
  type        = string
}

variable "num_slices" {
  description = "Number of slices: one node pool each."
  type        = number

  validation {
    condition     = var.num_slices >= 1 && floor(var.num_slices) == var.num_slices
    error_message = "num_slices must be a whole number, at least 1."
  }
}

variable "machine_type" {
  description = "TPU machine type, e.g. ct6e-standard-4t."
  type        = string
}

variable "node_count" {
  description = "VMs per slice: chips of the topology / chips per VM."
  type        = number
}

variable "tpu_topology" {
  description = "TPU topology of a multi-host slice, e.g. 16x16; null for a single-host slice."
  type        = string
  default     = null
}

variable "placement_type" {
  description = "COMPACT for a multi-host slice; null for a single-host slice."
  type        = string
  default     = null

  validation {
    condition     = var.placement_type == null || var.placement_type == "COMPACT"
    error_message = "placement_type must be COMPACT or null."
  }
}

variable "spot" {
  description = "Spot VMs."
  type        = bool
  default     = false
}

variable "reservation" {
  description = "Reservation to consume: NAME, projects/P/reservations/R[/reservationBlocks/B], or - for any; null for none."
  type        = string
  default     = null
}

variable "flex_start" {
  description = "Flex-start (Dynamic Workload Scheduler) capacity."
  type        = bool
  default     = false
}

variable "max_run_duration" {
  description = "Flex-start only: how long the nodes are kept, as seconds with an s suffix (\"21600s\")."
  type        = string
  default     = null
}

variable "auto_repair" {
  description = "Node auto-repair; must be false for flex-start."
  type        = bool
  default     = true
}

variable "autoscaling" {
  description = "Autoscaling limits per zone (flex-start: min 0, max = VMs per slice); null for a fixed size."
  type = object({
    min_node_count  = number
    max_node_count  = number
    location_policy = string
  })
  default = null
}

variable "max_pods_per_node" {
  description = "Pods per node (each node gets a Pod range slice sized for it); null for the cluster's default, 110."
  type        = number
  default     = null
}

variable "labels" {
  description = "Kubernetes labels of the nodes."
  type        = map(string)
  default     = {}
}
