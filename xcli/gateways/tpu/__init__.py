"""The Cloud TPU API (queued resources, TPU VMs) and OS Login."""
