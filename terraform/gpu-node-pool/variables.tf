variable "project_id" {
  description = "Project of the cluster."
  type        = string
}

variable "cluster" {
  description = "Name or id of the GKE cluster the pool belongs to."
  type        = string
}

variable "location" {
  description = "Location of the cluster (its region)."
  type        = string
}

variable "zones" {
  description = "Zones of the pool's nodes."
  type        = list(string)
}

variable "name" {
  description = "Node pool name."
  type        = string
}

variable "node_count" {
  description = "Number of GPU VMs."
  type        = number
}

variable "machine_type" {
  description = "GPU machine type, e.g. a3-highgpu-8g."
  type        = string
}

variable "accelerator_type" {
  description = "GPU type, e.g. nvidia-h100-80gb."
  type        = string
}

variable "accelerator_count" {
  description = "GPUs per VM."
  type        = number
}

variable "gpu_driver_version" {
  description = "Driver GKE installs: LATEST, DEFAULT or INSTALLATION_DISABLED."
  type        = string
  default     = "LATEST"
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

variable "queued_provisioning" {
  description = "Nodes only through ProvisioningRequests (GPU flex-start)."
  type        = bool
  default     = false
}

variable "auto_repair" {
  description = "Node auto-repair; must be false for flex-start."
  type        = bool
  default     = true
}

variable "autoscaling" {
  description = "Total autoscaling limits (flex-start: min 0); null for a fixed size."
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

variable "additional_node_networks" {
  description = "GPUDirect: the extra NICs of each node, in order (VPC and subnet names, from the gpu-network module)."
  type = list(object({
    network    = string
    subnetwork = string
  }))
  default = []
}
