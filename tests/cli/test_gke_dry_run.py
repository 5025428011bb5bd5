"""The GKE dry-run builds no client: it loads no Google library and reads no credentials."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO

PROBE = """
import sys
from xcli.cli.main import cli
try:
    cli.main(args=sys.argv[1:], prog_name="xcli", standalone_mode=False)
finally:
    loaded = sorted(m for m in sys.modules if m.startswith("google"))
    print("GOOGLE-MODULES:", loaded, file=sys.stderr)
"""


def test_dry_run_loads_no_google_library(tmp_path: Path) -> None:
    argv = ["cluster", "create", "--cluster", "demo", "--tpu-type", "v6e-256"]
    argv += ["--num-slices", "2", "--spot", "--project", "my-project", "--zone", "us-east5-b"]
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "XCLI_HOME": str(tmp_path / "s")}
    env["CLOUDSDK_CONFIG"] = str(tmp_path / "gcloud")
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, *argv, "--dry-run"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "GOOGLE-MODULES: []" in proc.stderr
    assert "demo-np-1" in proc.stdout


def test_create_asks_before_a_plan_that_removes_pools() -> None:
    import pytest

    from tests.plan.gke_cases import CASES
    from xcli.app.cluster import confirm_removals
    from xcli.cli.common import Common, confirm
    from xcli.errors import UserError
    from xcli.providers.gke.planner import GkeObserved, ObservedPool, plan_create

    spec = CASES["v6e-256-x2-spot"][1]
    extra = ObservedPool("demo-np-2", "RUNNING", "v6e-256", "ct6e-standard-4t", 64, "spot")
    plan = plan_create(spec, GkeObserved("RUNNING", ("us-east5-b",), {"demo-np-2": extra}))
    live = Common(None, None, "text", False, False, None)
    with pytest.raises(UserError) as caught:  # stdin is not a terminal under pytest
        confirm_removals(plan, lambda question: confirm(live, question))
    assert "delete node pool demo-np-2" in caught.value.message
    assert caught.value.hint == "pass --yes to confirm"
    yes = Common(None, None, "text", False, True, None)  # --yes
    confirm_removals(plan, lambda question: confirm(yes, question))
    confirm_removals(plan_create(spec), lambda question: confirm(live, question))  # nothing asked
