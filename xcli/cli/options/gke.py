"""Flags of `xcli cluster create` that only the gke provider takes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

OPTIONS: list[Callable[[Any], Any]] = []
