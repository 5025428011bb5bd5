"""plan/gke/versions.py: the warning about the xcli that set a cluster up."""

from __future__ import annotations

from xcli import __version__
from xcli.plan.gke.versions import MIN_SETUP_VERSION, parse, version_note


def test_this_xcli_can_use_its_own_setup() -> None:
    assert parse(MIN_SETUP_VERSION) is not None and parse(__version__) is not None
    assert parse(MIN_SETUP_VERSION) <= parse(__version__)  # type: ignore[operator]
    assert version_note({"xcli_version": __version__}, "demo") == ""


def test_newer_older_missing_and_development_versions() -> None:
    newer = version_note({"xcli_version": "0.3.0"}, "demo", current="0.2.0", minimum="0.2.0")
    assert newer.startswith("warning: cluster demo was set up by xcli 0.3.0, newer than")
    older = version_note({"xcli_version": "0.1.5"}, "demo", current="0.2.0", minimum="0.2.0")
    assert "needs a setup from 0.2.0 or later" in older and "cluster create" in older
    assert "records no xcli_version" in version_note({}, "demo")
    assert version_note({"xcli_version": "main-abc123"}, "demo") == ""  # nothing to compare
    assert version_note({"xcli_version": "v0.2.0"}, "demo", current="0.2.0") == ""


def test_upgrade_kinds() -> None:
    from xcli.plan.gke.versions import upgrade_kind

    assert upgrade_kind("kueue", "", "v0.19.2") == "absent"
    assert upgrade_kind("kueue", "v0.19.2", "v0.19.2") == "same"
    assert upgrade_kind("kueue", "v0.17.1", "v0.19.2") == "upgrade"
    assert upgrade_kind("kueue", "v0.14.3", "v0.19.2") == "breaking"
    assert upgrade_kind("jobset", "v0.10.1", "v0.12.0") == "upgrade"  # no known break
    assert upgrade_kind("kueue", "v0.20.0", "v0.19.2") == "newer"
    assert upgrade_kind("kueue", "latest", "v0.19.2") == "unknown"
