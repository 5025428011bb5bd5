"""XCLI_DRY_RUN and friends: a clear yes or no, or an error; never a silent "off"."""

from __future__ import annotations

import pytest

from xcli.env_flags import env_bool
from xcli.errors import UserError


@pytest.mark.parametrize("value", ["1", "true", "TRUE", "Yes", "on"])
def test_true_values(value: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XCLI_DRY_RUN", value)
    assert env_bool("XCLI_DRY_RUN") is True


@pytest.mark.parametrize("value", ["0", "false", "No", "OFF", ""])
def test_false_values(value: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XCLI_DRY_RUN", value)
    assert env_bool("XCLI_DRY_RUN") is False


def test_unset_is_false(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("XCLI_YES", raising=False)
    assert env_bool("XCLI_YES") is False


@pytest.mark.parametrize("value", ["maybe", "2", " 1", "yess", "o\x01n"])
def test_anything_else_is_an_error(value: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XCLI_DRY_RUN", value)
    with pytest.raises(UserError, match="neither true nor false") as err:
        env_bool("XCLI_DRY_RUN")
    assert "XCLI_DRY_RUN to 1 or 0" in err.value.hint
