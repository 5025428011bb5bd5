"""Collect XPK's documented and tested commands from a checkout of AI-Hypercomputer/xpk into
tests/data/xpk_commands.json (each with its file and line), for tests/cli/test_xpk_corpus.py.

Usage: python3 scripts/collect_xpk_commands.py XPK_CHECKOUT COMMIT

Rule (as docs/from-xpk.md's corpus describes it): every line of README.md, docs/**/*.md and
recipes/*.md inside a fenced block, and every line of .github/workflows/*.y*ml, that starts
(after indentation, `run:`, `-` or `$ `) with `xpk <word>` or `python3 xpk.py <word>`; a
backslash continuation joins the next line; lines with `...` are dropped (elisions, not
commands); a command already found keeps its first place, its repeats are listed beside it.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

START = re.compile(r"^\s*(?:-\s+)?(?:run:\s*)?(?:\$\s+)?(xpk\s+[a-z]|python3?\s+xpk\.py\s+[a-z])")


def commands(root: Path) -> list[dict[str, object]]:
    files = [root / "README.md", *sorted((root / "docs").rglob("*.md"))]
    files += sorted((root / "recipes").glob("*.md"))
    files += sorted((root / ".github" / "workflows").glob("*.y*ml"))
    found: dict[str, dict[str, object]] = {}
    for path in files:
        rel = path.relative_to(root).as_posix()
        lines = path.read_text(encoding="utf-8").splitlines()
        fenced = rel.startswith(".github/")
        i = 0
        while i < len(lines):
            line = lines[i]
            if not rel.startswith(".github/") and line.strip().startswith("```"):
                fenced = not fenced
                i += 1
                continue
            match = START.match(line) if fenced else None
            if match is None:
                i += 1
                continue
            start, text = i + 1, line[match.start(1) :].rstrip()
            while text.endswith("\\") and i + 1 < len(lines):
                i += 1
                text = text[:-1].rstrip() + " " + lines[i].strip()
            i += 1
            text = re.sub(r"^python3?\s+xpk\.py\s+", "xpk ", text).strip()
            if "..." in text:
                continue
            where = f"{rel}:{start}"
            if text in found:
                found[text]["repeats"].append(where)  # type: ignore[union-attr]
            else:
                found[text] = {"source": where, "command": text, "repeats": []}
    return list(found.values())


def main() -> None:
    root, commit = Path(sys.argv[1]), sys.argv[2]
    out = Path(__file__).resolve().parent.parent / "tests" / "data" / "xpk_commands.json"
    doc = {
        "repository": "AI-Hypercomputer/xpk",
        "commit": commit,
        "licence": "Apache-2.0",
        "commands": commands(root),
    }
    out.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    print(f"{len(doc['commands'])} commands -> {out}")


if __name__ == "__main__":
    main()
