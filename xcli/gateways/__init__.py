"""The only modules that touch the outside world (cloud APIs, Kubernetes, SSH, subprocesses)."""
