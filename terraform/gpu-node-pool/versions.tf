terraform {
  required_version = ">= 1.5"

  required_providers {
    # flex_start is GA since 6.39.0, max_run_duration since 6.19.0.
    google = {
      source  = "hashicorp/google"
      version = ">= 6.39.0, < 8.0"
    }
  }
}
