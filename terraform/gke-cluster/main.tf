# A regional GKE cluster whose nodes are limited to the zones given (for TPUs: the one zone of
# the slices). VPC-native, Dataplane V2, Workload Identity, a release channel. The default pool
# is removed; a small CPU pool runs the controllers (JobSet, Kueue); accelerator pools are
# separate modules.

resource "google_container_cluster" "this" {
  name           = var.name
  project        = var.project_id
  location       = var.region
  node_locations = var.zones

  network    = var.network
  subnetwork = var.subnetwork

  remove_default_node_pool = true
  initial_node_count       = 1
  # xcli (and terraform destroy) must be able to delete what it created.
  deletion_protection = false

  min_master_version = var.gke_version
  networking_mode    = "VPC_NATIVE"
  datapath_provider  = "ADVANCED_DATAPATH"
  # GPUDirect clusters: additional node networks and networking.gke.io objects (needs DPv2)
  enable_multi_networking = var.enable_multi_networking
  resource_labels         = var.labels

  ip_allocation_policy {
    stack_type = "IPV4"
    # "/N" lets GKE choose a Pod range of that size; null keeps its default /14
    cluster_ipv4_cidr_block = var.pod_range
  }

  release_channel {
    channel = var.release_channel
  }

  workload_identity_config {
    workload_pool = "${var.project_id}.svc.id.goog"
  }

  # Node auto-provisioning (xcli/providers/gke/nap.py): GKE makes the accelerator pools.
  dynamic "cluster_autoscaling" {
    for_each = var.cluster_autoscaling == null ? [] : [var.cluster_autoscaling]
    content {
      enabled                     = true
      autoscaling_profile         = cluster_autoscaling.value.autoscaling_profile
      auto_provisioning_locations = cluster_autoscaling.value.auto_provisioning_locations

      dynamic "resource_limits" {
        for_each = cluster_autoscaling.value.resource_limits
        content {
          resource_type = resource_limits.value.resource_type
          minimum       = resource_limits.value.minimum
          maximum       = resource_limits.value.maximum
        }
      }

      auto_provisioning_defaults {
        oauth_scopes = cluster_autoscaling.value.oauth_scopes
        management {
          auto_repair  = true
          auto_upgrade = true
        }
      }
    }
  }

  lifecycle {
    ignore_changes = [initial_node_count, min_master_version]

    precondition {
      condition     = length(var.zones) >= 1
      error_message = "Give at least one zone for the cluster's nodes."
    }
  }
}

resource "google_container_node_pool" "system" {
  name           = "${var.name}-system"
  project        = var.project_id
  cluster        = google_container_cluster.this.name
  location       = var.region
  node_locations = var.zones
  node_count     = var.system_pool_node_count

  management {
    auto_repair  = true
    auto_upgrade = true
  }

  node_config {
    machine_type = var.system_pool_machine_type
    oauth_scopes = ["https://www.googleapis.com/auth/cloud-platform"]

    workload_metadata_config {
      mode = "GKE_METADATA"
    }
  }
}
