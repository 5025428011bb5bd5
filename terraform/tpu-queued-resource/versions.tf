terraform {
  required_version = ">= 1.5"

  required_providers {
    # google_tpu_v2_queued_resource exists only in google-beta.
    google-beta = {
      source  = "hashicorp/google-beta"
      version = ">= 6.39.0, < 8.0"
    }
  }
}
