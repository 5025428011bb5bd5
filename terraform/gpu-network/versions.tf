terraform {
  required_version = ">= 1.5"

  required_providers {
    # google_compute_network.network_profile: in the schema of hashicorp/google 6.50.0.
    google = {
      source  = "hashicorp/google"
      version = ">= 6.39.0, < 8.0"
    }
  }
}
