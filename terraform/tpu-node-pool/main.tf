# One GKE node pool per TPU slice. A multi-host pool is one atomic slice: COMPACT placement
# with the slice's TPU topology, in exactly one zone. Multislice means num_slices such pools,
# named <name_prefix>-0 .. <name_prefix>-(num_slices-1).

locals {
  reservation_type = (
    var.reservation == null ? "NO_RESERVATION" :
    var.reservation == "-" ? "ANY_RESERVATION" : "SPECIFIC_RESERVATION"
  )
  specific_reservation = local.reservation_type == "SPECIFIC_RESERVATION"
}

resource "google_container_node_pool" "slice" {
  count          = var.num_slices
  name           = "${var.name_prefix}-${count.index}"
  project        = var.project_id
  cluster        = var.cluster
  location       = var.location
  node_locations = var.zones

  # Flex-start pools scale from zero; every other slice has all of its VMs from the start.
  node_count         = var.autoscaling == null ? var.node_count : null
  initial_node_count = var.autoscaling == null ? null : var.autoscaling.min_node_count
  max_pods_per_node  = var.max_pods_per_node

  dynamic "autoscaling" {
    for_each = var.autoscaling == null ? [] : [var.autoscaling]
    content {
      # Per-zone limits, not total_*: TPU flex-start pools need them (a provider quirk that
      # Cluster Toolkit works around the same way).
      min_node_count  = autoscaling.value.min_node_count
      max_node_count  = autoscaling.value.max_node_count
      location_policy = autoscaling.value.location_policy
    }
  }

  dynamic "placement_policy" {
    for_each = var.placement_type == null ? [] : [var.placement_type]
    content {
      type         = placement_policy.value
      tpu_topology = var.tpu_topology
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
    labels           = var.labels
    oauth_scopes     = ["https://www.googleapis.com/auth/cloud-platform"]

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
      condition     = var.placement_type != "COMPACT" || length(var.zones) == 1
      error_message = "COMPACT placement (a multi-host TPU slice) needs exactly one zone."
    }
  }
}
