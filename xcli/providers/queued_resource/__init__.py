"""The queued-resource provider: Cloud TPU queued resources, TPU VMs without Kubernetes.
provider.py (the Provider), planner.py, options.py and login_plan.py (pure plans), handlers.py,
login.py and access.py (live handlers, SSH keys and host keys), terraform.py (Terraform mode)."""
