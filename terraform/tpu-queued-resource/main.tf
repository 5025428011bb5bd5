# Cloud TPU queued resources (google-beta only). The provider's queued resource (6.x) has no
# multislice parameters, no spot or guaranteed tier and no reservation: a multislice request is
# num_slices queued resources, each scheduled on its own (not all-or-nothing), and capacity is
# on-demand. xcli refuses the other capacity choices in --terraform mode before writing anything.

locals {
  # One slice keeps the cluster's name; slices of a multislice request are <name>-<i>, the node
  # names the API's multislice parameters would give.
  names = [for i in range(var.num_slices) : var.num_slices == 1 ? var.name : "${var.name}-${i}"]
}

resource "google_tpu_v2_queued_resource" "slice" {
  provider = google-beta
  count    = var.num_slices
  name     = local.names[count.index]
  project  = var.project_id
  zone     = var.zone

  tpu {
    node_spec {
      parent  = "projects/${var.project_id}/locations/${var.zone}"
      node_id = local.names[count.index]

      node {
        accelerator_type = var.accelerator_type
        runtime_version  = var.runtime_version
        description      = var.description

        network_config {
          network             = var.network
          subnetwork          = var.subnetwork
          enable_external_ips = var.enable_external_ips
        }
      }
    }
  }

  lifecycle {
    precondition {
      condition     = var.network != null || var.subnetwork == null
      error_message = "Give the network of the subnetwork too."
    }
  }
}
