# Written by xcli from templates/terraform/versions.tf.j2.
terraform {
  required_version = ">= 1.5"

  required_providers {
    google = {
      source  = "hashicorp/google"
      version = ">= 6.39.0, < 8.0"
    }
  }
}
