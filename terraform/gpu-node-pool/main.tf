# One GKE node pool of GPU VMs, with the accelerators attached and the driver installed by GKE.
# Flex-start GPU pools use queued provisioning: nodes come only through a ProvisioningRequest
# (Kueue's AdmissionCheck), which also carries the run duration (maxRunDurationSeconds), so a
# queued pool sets no max_run_duration. GKE taints queued nodes cloud.google.com/gke-queued but
# does not label them so; the label is added here, as Cluster Toolkit's gke-node-pool module
# does (cluster-toolkit@1047080 modules/compute/gke-node-pool/main.tf l.68-76).

locals {
  reservation_type = (
    var.reservation == null ? "NO_RESERVATION" :
    var.reservation == "-" ? "ANY_RESERVATION" : "SPECIFIC_RESERVATION"
  )
  specific_reservation = local.reservation_type == "SPECIFIC_RESERVATION"
  labels = merge(
    var.labels,
    var.queued_provisioning ? { "cloud.google.com/gke-queued" = "true" } : {},
  )
}

resource "google_container_node_pool" "gpu" {
  name           = var.name
  project        = var.project_id
  cluster        = var.cluster
  location       = var.location
  node_locations = var.zones

  node_count         = var.autoscaling == null ? var.node_count : null
  initial_node_count = var.autoscaling == null ? null : var.autoscaling.min_node_count
  max_pods_per_node  = var.max_pods_per_node

  dynamic "autoscaling" {
    for_each = var.autoscaling == null ? [] : [var.autoscaling]
    content {
      total_min_node_count = autoscaling.value.min_node_count
      total_max_node_count = autoscaling.value.max_node_count
      location_policy      = autoscaling.value.location_policy
    }
  }

  # GPUDirect: one extra NIC per entry, in NIC order (VPC and subnet names)
  dynamic "network_config" {
    for_each = length(var.additional_node_networks) > 0 ? [true] : []
    content {
      dynamic "additional_node_network_configs" {
        for_each = var.additional_node_networks
        content {
          network    = additional_node_network_configs.value.network
          subnetwork = additional_node_network_configs.value.subnetwork
        }
      }
    }
  }

  dynamic "queued_provisioning" {
    for_each = var.queued_provisioning ? [true] : []
    content {
      enabled = true
    }
  }

  management {
    auto_repair  = var.auto_repair
    auto_upgrade = true
  }

  node_config {
    machine_type     = var.machine_type
    spot             = var.spot
    flex_start       = var.flex_start ? true : null
    max_run_duration = var.max_run_duration
    labels           = local.labels
    oauth_scopes     = ["https://www.googleapis.com/auth/cloud-platform"]

    guest_accelerator {
      type  = var.accelerator_type
      count = var.accelerator_count

      gpu_driver_installation_config {
        gpu_driver_version = var.gpu_driver_version
      }
    }

    gvnic {
      enabled = true
    }

    reservation_affinity {
      consume_reservation_type = local.reservation_type
      key                      = local.specific_reservation ? "compute.googleapis.com/reservation-name" : null
      values                   = local.specific_reservation ? [var.reservation] : null
    }

    workload_metadata_config {
      mode = "GKE_METADATA"
    }
  }

  lifecycle {
    ignore_changes = [initial_node_count]

    precondition {
      condition     = !var.flex_start || var.reservation == null
      error_message = "A flex-start pool cannot consume a reservation: set reservation = null."
    }
    precondition {
      condition     = !var.flex_start || !var.spot
      error_message = "A flex-start pool cannot be spot: choose one of flex_start and spot."
    }
    precondition {
      condition     = !var.flex_start || try(var.autoscaling.min_node_count, -1) == 0
      error_message = "A flex-start pool autoscales from 0: set autoscaling.min_node_count = 0."
    }
    precondition {
      condition     = !var.flex_start || !var.auto_repair
      error_message = "A flex-start pool needs auto_repair = false."
    }
    precondition {
      condition     = var.max_run_duration == null || var.flex_start
      error_message = "max_run_duration applies only to flex-start pools."
    }
    precondition {
      condition     = !var.spot || var.reservation == null
      error_message = "A spot pool cannot consume a reservation: set reservation = null."
    }
    precondition {
      condition     = !var.queued_provisioning || var.max_run_duration == null
      error_message = "A queued-provisioning pool takes its run duration from each ProvisioningRequest: set max_run_duration = null."
    }
    precondition {
      condition     = !var.queued_provisioning || (var.reservation == null && !var.spot && try(var.autoscaling.min_node_count, -1) == 0)
      error_message = "Queued provisioning needs no reservation, no spot and autoscaling from 0."
    }
  }
}
