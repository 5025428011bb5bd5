"""OCI registries (the distribution API): token auth, blob and manifest transfer, pushes."""
