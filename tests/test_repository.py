"""The repository stands on its own: nothing names a folder beside the checkout, and the test
data in tests/data/ is the upstream data its SOURCES.md describes."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
from pathlib import Path

from tests.conftest import DATA, REPO

# Built from parts so that this file does not contain what it looks for.
PARENT = ".." + "/"
NEEDLES = [PARENT + "shared", "shared" + "/schemas", "shared" + "/reference"]
# What a walk skips when there is no git checkout (a copy made by .ci/run, an sdist).
NOT_SOURCE = {".git", ".venv", "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache"}
NOT_SOURCE |= {"build", "dist", ".xcli"}


def project_files(root: Path) -> list[Path]:
    """Tracked and new (not ignored) files in a git checkout; every file elsewhere."""
    git = shutil.which("git")
    if git and (root / ".git").exists():
        out = subprocess.run(
            [git, "-C", str(root), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            capture_output=True,
            check=True,
        ).stdout
        names = [n for n in out.decode().split("\0") if n]
        return [root / n for n in names if (root / n).is_file()]
    found = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in NOT_SOURCE and not d.endswith(".egg-info")]
        found += [Path(folder) / f for f in files]
    return found


def naming_outside(root: Path) -> list[str]:
    """`path:line` of every line in the project's files that names the folder beside it."""
    hits = []
    for path in project_files(root):
        text = path.read_bytes()
        for needle in NEEDLES:
            for match in re.finditer(re.escape(needle.encode()), text):
                line = text.count(b"\n", 0, match.start()) + 1
                hits.append(f"{path.relative_to(root)}:{line}: {needle}")
    return sorted(set(hits))


def test_no_file_names_a_folder_beside_the_checkout() -> None:
    """Tests, code and docs read and cite only the repository and public URLs: a clone is all
    a user has."""
    assert naming_outside(REPO) == []


def test_the_check_finds_a_mention(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text(f"x = 1\n# see {NEEDLES[0]}/k8s.md\n")
    (tmp_path / ".venv").mkdir()
    (tmp_path / ".venv" / "b.py").write_text(f"{PARENT}shared\n")  # not the project's
    assert naming_outside(tmp_path) == [f"src{os.sep}a.py:2: {NEEDLES[0]}"]


def _sources() -> dict[str, str]:
    """tests/data/SOURCES.md's table: file -> sha256."""
    rows = {}
    for line in (DATA / "SOURCES.md").read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 5 and re.fullmatch(r"[0-9a-f]{64}", cells[3]):
            rows[cells[0].strip("`")] = cells[3]
    return rows


def test_test_data_is_the_upstream_data_sources_md_names() -> None:
    sources = _sources()
    on_disk = {
        p.relative_to(DATA).as_posix()
        for p in DATA.rglob("*")
        if p.is_file() and p.name != "SOURCES.md" and p.parent.name != "licenses"
    }
    assert set(sources) == on_disk  # every file listed, every listed file present
    for name, digest in sorted(sources.items()):
        assert hashlib.sha256((DATA / name).read_bytes()).hexdigest() == digest, name


def test_licence_texts_are_kept_beside_the_data() -> None:
    licences = DATA / "licenses"
    named = (DATA / "SOURCES.md").read_text(encoding="utf-8")
    for text in sorted(licences.iterdir()):
        assert f"licenses/{text.name}" in named
    assert (licences / "Apache-2.0.txt").read_bytes() == (REPO / "LICENSE").read_bytes()
    assert (
        "Copyright (c) Microsoft Corporation"
        in (licences / "MIT-terraform-google-schema.txt").read_text()
    )
    assert (licences / "MPL-2.0.txt").read_text().startswith("Mozilla Public License Version 2.0")
