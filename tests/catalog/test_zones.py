"""Where each accelerator is offered; `cluster create` refuses a zone that does not offer it."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

from xcli.catalog import families, lookup
from xcli.catalog.zones import (
    check_flex_start,
    check_zone,
    families_with_zones,
    offered_zones,
    rows,
    zone_note,
)
from xcli.cli.errors import run_guarded
from xcli.cli.main import cli
from xcli.config import KEYS
from xcli.errors import UserError

ZONE_FORMAT = KEYS["zone"][2]
TPU_PAGES = (  # the Cloud TPU regions-and-zones page, in the versions stored
    "https://cloud.google.com/tpu/docs/regions-zones",
    "https://docs.cloud.google.com/tpu/docs/types-zones",
    "https://docs.cloud.google.com/tpu/docs/regions-zones",
    "https://cloud-dot-devsite-v2-prod.appspot.com/tpu/docs/types-zones",
    "https://cloud.google.com/tpu/docs/request-using-flex-start",  # v6e asia-northeast1-b
)


def test_every_row_names_a_known_family_a_zone_and_its_page() -> None:
    assert families_with_zones(), "no zone rows at all"
    for family in families_with_zones():
        assert family in families(), f"{family} is not a catalogue family"
        zones = offered_zones(family)
        assert zones and len(zones) == len(set(zones)), f"{family}: empty or repeated zones"
        for row in rows(family):
            assert re.fullmatch(ZONE_FORMAT, row.zone), row
            assert row.source.startswith(TPU_PAGES), row


def test_every_tpu_family_has_zones() -> None:
    assert set(families()) <= set(families_with_zones())


def test_v6e_in_a_zone_without_it_is_refused_with_the_zones_that_have_it() -> None:
    with pytest.raises(UserError) as caught:
        check_zone(lookup("v6e-256"), "us-west1-a")
    assert caught.value.message.startswith("zone us-west1-a does not offer v6e")
    assert "us-east5-b" in caught.value.hint and "europe-west4-a" in caught.value.hint
    check_zone(lookup("v6e-256"), "us-east5-b")  # offered: no error


def test_a_zone_that_does_not_exist_is_refused() -> None:
    with pytest.raises(UserError, match="does not exist"):
        check_zone(lookup("v5p-128"), "us-east5-z")


@pytest.mark.parametrize("zone", ["us-west2-a", "northamerica-northeast1-a", "us-central1-a"])
def test_a_north_american_zone_the_table_lacks_is_refused(zone: str) -> None:
    """The stored copies list North America in full: there the table settles it (issue 32;
    XPK's recipe goldens' us-central1-a with tpu7x stay refused for that reason, issue 36)."""
    with pytest.raises(UserError) as caught:
        check_zone(lookup("tpu7x-128"), zone)
    assert (
        caught.value.message == f"zone {zone} does not offer tpu7x (tpu7x-128), or does not exist"
    )
    assert "us-central1-ai1a, us-central1-c" in caught.value.hint
    assert zone_note(lookup("tpu7x-128"), zone) is None  # refused, not noted


@pytest.mark.parametrize("zone", ["europe-west4-b", "asia-southeast1-b", "mars-north1-a"])
def test_a_zone_where_the_stored_pages_are_cut_short_is_noted_not_refused(zone: str) -> None:
    """Issue 36: the copies end in or before Europe, so a zone there that the table lacks may
    still offer the family; the plan says what is known instead of refusing."""
    check_zone(lookup("tpu7x-128"), zone)
    note = zone_note(lookup("tpu7x-128"), zone) or ""
    assert note.startswith(f"zone {zone}: the stored copies") and "us-central1-c" in note
    assert zone_note(lookup("v6e-256"), "europe-west4-a") is None  # listed: nothing to say


def test_ai_zones_as_the_page_writes_them() -> None:
    for zone in ("us-central1-ai1a", "us-central1-ai1", "us-south1-ai1b"):
        assert re.fullmatch(ZONE_FORMAT, zone), zone
    check_zone(lookup("tpu7x-128"), "us-central1-ai1a")
    check_zone(lookup("v6e-256"), "us-central1-ai1")
    check_zone(lookup("v6e-256"), "us-south1-ai1b")
    assert not re.fullmatch(ZONE_FORMAT, "us-central1-ai")


def test_flex_start_rows_are_the_flex_start_pages() -> None:
    assert check_flex_start(lookup("v6e-16"), "asia-northeast1-b").use == "training and serving"
    assert check_flex_start(lookup("v5litepod-16"), "us-west4-a").use == "training"
    with pytest.raises(UserError, match="flex-start queued resources for v5e and v6e only"):
        check_flex_start(lookup("v5p-128"), "us-east5-a")
    with pytest.raises(UserError, match="only in asia-northeast1-b") as caught:
        check_flex_start(lookup("v6e-256"), "us-east5-b")
    assert "--zone asia-northeast1-b" in (caught.value.hint or "")


def test_a_family_without_rows_is_not_refused() -> None:
    assert offered_zones("h100-80gb") == ()
    check_zone(lookup("h100-80gb-8"), "us-east5-b")


def create(capsys: pytest.CaptureFixture[str], *flags: str) -> tuple[int, str, str]:
    argv = ["cluster", "create", "--cluster", "demo", "--project", "my-project", "--dry-run"]
    code = run_guarded(cli, [*argv, *flags], debug=False)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cluster_create_dry_run_refuses_v6e_in_us_west1_a(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = create(capsys, "--tpu-type", "v6e-256", "--zone", "us-west1-a", "--spot")
    assert code == 1 and not out, out
    lines = err.splitlines()
    assert lines[0] == "error: zone us-west1-a does not offer v6e (v6e-256), or does not exist"
    assert lines[1].startswith("hint: use a zone that offers v6e: us-central1-b, us-east1-d")
    assert len(lines) == 2


def test_queued_resource_refuses_too_and_local_has_no_zone(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, _, err = create(
        capsys, "--provider", "queued-resource", "--tpu-type", "v5p-8", "--zone", "us-west1-a",
        "--on-demand",
    )  # fmt: skip
    assert code == 1 and "does not offer v5p" in err, err
    code, _, err = create(capsys, "--provider", "local", "--tpu-type", "v6e-8")
    assert code == 0 and "does not offer" not in err, err


def test_catalog_show_lists_the_zones_with_their_pages() -> None:
    result = CliRunner().invoke(cli, ["catalog", "show", "v4-8"])
    assert result.exit_code == 0, result.output
    assert "us-central2-b: https://cloud.google.com/tpu/docs/regions-zones" in result.output


def test_the_zone_is_refused_first_even_without_project_or_capacity(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The issue's command, as an XPK user types it (no capacity flag, no project set)."""
    argv = ["cluster", "create", "--cluster", "demo", "--tpu-type", "v6e-256"]
    assert run_guarded(cli, [*argv, "--zone", "us-west1-a", "--dry-run"], debug=False) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: zone us-west1-a does not offer v6e (v6e-256)"), err


def test_cluster_create_notes_a_zone_the_pages_do_not_reach(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = create(capsys, "--tpu-type", "tpu7x-8", "--zone", "europe-west4-b", "--spot")
    assert code == 0, out
    assert "note: zone europe-west4-b: the stored copies of Cloud TPU's" in out
