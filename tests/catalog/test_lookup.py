from __future__ import annotations

import pytest

from xcli.catalog import lookup
from xcli.errors import UserError


def test_count_and_topology_forms_name_the_same_slice() -> None:
    assert lookup("v6e-16x16") == lookup("v6e-256")
    assert lookup("v6e-16x16").name == "v6e-256"


def test_unknown_size_suggests_the_nearest() -> None:
    with pytest.raises(UserError) as err:
        lookup("v6e-257")
    assert "v6e-256" in err.value.hint
