"""Google Cloud APIs over REST: GKE, Compute Engine, storage APIs, Cloud Logging."""
