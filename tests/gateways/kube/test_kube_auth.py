"""Google OAuth tokens for the Kubernetes API: looked up lazily, refreshed, errors explained."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import responses

from xcli.errors import ConfigError
from xcli.gateways.kube.auth import google_token_provider

TOKEN_URI = "https://oauth2.googleapis.com/token"


def test_missing_credentials_are_a_config_error_with_a_hint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A credentials file that does not exist fails before google-auth would probe the GCE
    # metadata server, so this test reaches no host.
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(tmp_path / "missing.json"))
    token = google_token_provider()  # building the provider looks nothing up
    with pytest.raises(ConfigError, match="no Google credentials") as err:
        token()
    assert "application-default login" in err.value.hint


@responses.activate
def test_token_from_application_default_credentials_is_cached(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    adc = tmp_path / "adc.json"
    adc.write_text(
        json.dumps(
            {
                "type": "authorized_user",
                "client_id": "id",
                "client_secret": "secret",
                "refresh_token": "refresh",
                "token_uri": TOKEN_URI,
            }
        )
    )
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(adc))
    responses.post(TOKEN_URI, json={"access_token": "ya29.first", "expires_in": 3600})
    token = google_token_provider()
    assert token() == "ya29.first"
    assert token() == "ya29.first"  # still valid: no second refresh
    assert len(responses.calls) == 1
    assert "refresh_token=refresh" in str(responses.calls[0].request.body)
