"""The gke provider: a GKE cluster with one TPU node pool per slice (or a GPU pool), JobSet and
Kueue installed. provider.py (the Provider), standard.py (how it reaches Google and the
cluster), planner.py and planner_delete.py (pure plans), terraform.py (Terraform mode)."""
