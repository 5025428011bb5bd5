"""Topology rules of the TPU families: which shapes a family accepts, and what a count name means.

Facts (the lists, limits and default shapes) come from the catalogue data file; this module holds
only the rules that turn them into shapes. A 3-D family accepts every AxBxC whose dimensions are
multiples of 4 and whose number of 64-chip cubes is within the family's limit, plus a few small
shapes; a 2-D family accepts a fixed list.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from xcli.catalog.model import Accelerator
from xcli.errors import UserError

CUBE = 64  # chips in one 4x4x4 cube
MAX_DIM = 256


def parse_topology(text: str) -> tuple[int, ...]:
    """'4x4x8' -> (4, 4, 8). Raises ValueError on anything else."""
    parts = text.split("x")
    if not all(p.isdigit() and not p.startswith("0") for p in parts):
        raise ValueError(text)
    return tuple(int(p) for p in parts)


def format_topology(dims: Sequence[int]) -> str:
    return "x".join(str(d) for d in dims)


def product(dims: Sequence[int]) -> int:
    n = 1
    for d in dims:
        n *= d
    return n


@dataclass(frozen=True)
class FamilyRules:
    """The shape rules of one TPU family, built from its entry in the data file."""

    name: str
    data: Mapping[str, Any]

    @property
    def prefix(self) -> str:
        return str(self.data["prefix"])

    @property
    def cores_per_chip(self) -> int:
        return int(self.data["tensorcores_per_chip"])

    @property
    def dims(self) -> int:
        return int(self.data["dims"])

    @property
    def max_chips(self) -> int:
        if self.dims == 2:
            return max(product(parse_topology(t)) for t in self.data["topologies"])
        return int(self.data["max_cubes"]) * CUBE

    @cached_property
    def topologies(self) -> tuple[tuple[int, ...], ...]:
        """Every accepted shape, in the order used to pick the shape behind a count name."""
        if self.dims == 2:
            return tuple(parse_topology(t) for t in self.data["topologies"])
        return tuple(self._shapes_3d())

    def _shapes_3d(self) -> Iterator[tuple[int, ...]]:
        if self.data.get("single_chip"):
            yield (1, 1, 1)
        for small in self.data["small_shapes"]:
            yield parse_topology(small)
        limit = int(self.data["max_cubes"]) * CUBE
        permutations = bool(self.data.get("permutations"))
        for a in range(4, MAX_DIM + 1, 4):
            for b in range(4 if permutations else a, MAX_DIM + 1, 4):
                if a * b * 4 > limit:
                    break
                for c in range(4 if permutations else b, MAX_DIM + 1, 4):
                    if a * b * c > limit:
                        break
                    yield (a, b, c)

    @cached_property
    def _by_chips(self) -> dict[int, tuple[int, ...]]:
        """Chip count -> the shape a count name of that size stands for."""
        chosen: dict[int, tuple[int, ...]] = {}
        for dims in self.topologies:
            chosen.setdefault(product(dims), dims)
        # Where several shapes share a chip count, an explicit default wins, so that a count name
        # means the same slice as in XPK 1.16.0 (src/xpk/core/system_characteristics.py in
        # https://github.com/AI-Hypercomputer/xpk; every name is compared in tests/catalog/).
        for text in self.data.get("default_topologies", ()):
            dims = parse_topology(text)
            chosen[product(dims)] = dims
        return dict(sorted(chosen.items()))

    @cached_property
    def _accepted(self) -> frozenset[tuple[int, ...]]:
        return frozenset(self.topologies)

    def count_names(self) -> list[str]:
        return [f"{self.prefix}-{chips * self.cores_per_chip}" for chips in self._by_chips]

    def chip_counts(self) -> list[int]:
        return list(self._by_chips)

    def shape_for_count(self, count: int) -> tuple[int, ...]:
        """Shape behind the count name `<prefix>-<count>`; raises UserError with the near sizes."""
        chips, rest = divmod(count, self.cores_per_chip)
        if rest == 0 and chips in self._by_chips:
            return self._by_chips[chips]
        near = self._nearest(count)
        raise UserError(
            f"{self.prefix}-{count} is not a {self.name} slice size",
            hint=f"did you mean {near}? `xcli catalog list --family {self.name}` lists every size",
        )

    def _nearest(self, count: int) -> str:
        counts = [c * self.cores_per_chip for c in self._by_chips]
        best = min(counts, key=lambda c: (abs(c - count), c))
        return f"{self.prefix}-{best}"

    def check_topology(self, dims: tuple[int, ...]) -> None:
        """Raise UserError naming the rule a shape breaks; return if the family accepts it."""
        if dims in self._accepted:
            return
        shape = format_topology(dims)
        name = f"{self.prefix}-{shape}"
        if len(dims) != self.dims:
            raise UserError(
                f"{name}: {self.name} topologies have {self.dims} dimensions",
                hint=f"write it as {'AxB' if self.dims == 2 else 'AxBxC'}",
            )
        if self.dims == 2:
            raise UserError(
                f"{name} is not a {self.name} topology",
                hint="accepted: " + ", ".join(str(t) for t in self.data["topologies"]),
            )
        small = ", ".join(self.data["small_shapes"])
        if any(d % 4 for d in dims):
            raise UserError(
                f"{name}: every dimension of a {self.name} slice must be a multiple of 4",
                hint=f"the only smaller shapes are {small}",
            )
        if product(dims) > self.max_chips:
            raise UserError(
                f"{name} has {product(dims)} chips; a {self.name} slice holds at most "
                f"{self.max_chips} ({self.data['max_cubes']} cubes of 4x4x4)",
                hint="use several slices (--num-slices) for more chips",
            )
        if max(dims) > MAX_DIM:
            raise UserError(f"{name}: no dimension may exceed {MAX_DIM}", hint="")
        ordered = f"{self.prefix}-{format_topology(sorted(dims))}"
        raise UserError(
            f"{name}: {self.name} topologies are written in non-decreasing order",
            hint=f"did you mean {ordered}?",
        )


def check_domain(accel: Accelerator, num_nodes: int) -> None:
    """A GB200 node pool is one NVLink domain: at most `nvlink_domain_vms` VMs."""
    domain = accel.nvlink_domain_vms
    if domain is not None and num_nodes > domain:
        raise UserError(
            f"--num-nodes {num_nodes} does not fit one {accel.family.upper()} NVLink domain: a "
            f"{accel.topology} domain is {domain} {accel.machine_type} VMs of "
            f"{accel.chips_per_vm} GPUs",
            hint=f"use --num-nodes {domain} (a whole domain) or fewer; "
            "create another cluster for another domain",
        )
