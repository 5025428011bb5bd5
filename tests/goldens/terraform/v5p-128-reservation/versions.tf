# Written by xcli from templates/terraform/versions.tf.j2.
terraform {
  required_version = ">= 1.5"

  required_providers {
    google = {
      source  = "hashicorp/google"
      version = ">= 6.39.0, < 8.0"
    }
  }

  # State in Cloud Storage (the bucket must exist; GCS locks the state while terraform runs).
  backend "gcs" {
    bucket = "my-tf-state"
    prefix = "xcli/my-proj/us-east5-b/demo"
  }
}
