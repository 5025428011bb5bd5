"""The Kubernetes API (lightkube): connection, apply/delete handlers, rollouts, status reads."""
