"""xcli: Cloud TPU and GPU capacity, workloads and fan-out commands, with a faithful dry-run."""

__version__ = "0.1.0"
