"""Pathways: single-controller JAX on many TPU slices (issue 25)."""
