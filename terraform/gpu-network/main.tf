# The extra VPCs of a GPUDirect GKE cluster: one custom-mode VPC per entry of var.networks, its
# subnets, and (except on an RDMA VPC, which takes none) one firewall rule allowing internal
# TCP/UDP/ICMP traffic. An RDMA VPC is created on its zone's RoCE network profile.

locals {
  subnets = merge([
    for net in var.networks : {
      for sub in net.subnets : sub.name => merge(sub, { network = net.name })
    }
  ]...)
  firewalls = { for net in var.networks : net.firewall => net if net.firewall != null }
}

resource "google_compute_network" "gpu" {
  for_each = { for net in var.networks : net.name => net }

  name                    = each.value.name
  project                 = var.project_id
  description             = var.description
  auto_create_subnetworks = false
  mtu                     = each.value.mtu
  routing_mode            = each.value.network_profile == null ? null : "REGIONAL"
  network_profile         = each.value.network_profile
}

resource "google_compute_subnetwork" "gpu" {
  for_each = local.subnets

  name          = each.value.name
  project       = var.project_id
  region        = var.region
  description   = var.description
  network       = google_compute_network.gpu[each.value.network].id
  ip_cidr_range = each.value.cidr
  stack_type    = "IPV4_ONLY"
}

resource "google_compute_firewall" "gpu" {
  for_each = local.firewalls

  name          = each.key
  project       = var.project_id
  description   = var.description
  network       = google_compute_network.gpu[each.value.name].id
  direction     = "INGRESS"
  priority      = 1000
  source_ranges = var.internal_source_ranges

  allow {
    protocol = "tcp"
    ports    = ["0-65535"]
  }
  allow {
    protocol = "udp"
    ports    = ["0-65535"]
  }
  allow {
    protocol = "icmp"
  }

  lifecycle {
    precondition {
      condition     = each.value.network_profile == null
      error_message = "An RDMA (RoCE) VPC takes no firewall rules: set firewall = null on it."
    }
  }
}
