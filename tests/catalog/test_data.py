"""The data file itself: every figure has a unit and a public source."""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

FIGURES = ("peak_bf16_tflops", "hbm", "hbm_bandwidth")


def _data() -> dict[str, Any]:
    text = resources.files("xcli.catalog").joinpath("accelerators.json").read_text()
    data: dict[str, Any] = json.loads(text)
    return data


def test_every_figure_cites_a_public_source() -> None:
    data = _data()
    entries = {**data["tpu_families"], **data["gpus"]}
    assert set(data["tpu_families"]) == {"v4", "v5e", "v5p", "v6e", "tpu7x"}
    assert set(data["gpus"]) == {
        "l4",
        "a100-40gb",
        "h100-80gb",
        "h100-mega-80gb",
        "h200-141gb",
        "b200",
        "gb200",
    }
    for name, entry in entries.items():
        for key in FIGURES:
            fig = entry[key]
            assert fig["value"] > 0, (name, key)
            assert fig["unit"] in ("TFLOP/s", "GB", "GiB", "GB/s"), (name, key)
            assert fig["source"].startswith("https://"), (name, key)


def test_tpu_families_name_their_sources() -> None:
    for name, entry in _data()["tpu_families"].items():
        assert {"shapes", "machine_types", "runtime_version"} <= set(entry["sources"]), name
