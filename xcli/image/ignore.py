"""`.dockerignore` with Docker's syntax and meaning.

Facts followed (moby/patternmatcher, `patternmatcher.go` and `ignorefile/ignorefile.go`; the
commit the search index holds, not pinned here): a line starting with `#` is a comment; each
line is trimmed; `!` makes an exception that re-includes; the pattern is cleaned like Go's
`filepath.Clean` and a leading `/` dropped; `*` matches any run of characters but `/`, `?` one
character but `/`, `**` any number of whole directories (also none), `[...]` a class, `\\`
escapes. A path is excluded when the last pattern matching it, or matching one of its parent
directories, is not an exception (`MatchesOrParentMatches`).
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Pattern:
    text: str
    exception: bool
    regex: re.Pattern[str]


def _compile(pattern: str) -> re.Pattern[str]:
    out, i = "", 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "*" and pattern[i + 1 : i + 2] == "*":
            i += 2
            if pattern[i : i + 1] == "/":
                i += 1
            out += ".*" if i >= len(pattern) else "(?:.*/)?"
            continue
        if ch == "*":
            out += "[^/]*"
        elif ch == "?":
            out += "[^/]"
        elif ch == "\\" and i + 1 < len(pattern):
            i += 1
            out += re.escape(pattern[i])
        elif ch == "[":
            end = pattern.find("]", i + 1)
            if end < 0:
                out += re.escape(ch)
            else:
                body = pattern[i + 1 : end]
                body = "^" + body[1:] if body.startswith(("!", "^")) else body
                out += f"[{body}]"
                i = end
        else:
            out += re.escape(ch)
        i += 1
    return re.compile(f"^{out}$")


def parse(text: str) -> tuple[Pattern, ...]:
    """The patterns of a `.dockerignore` file's text, in order."""
    patterns: list[Pattern] = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        exception = line.startswith("!")
        if exception:
            line = line[1:].strip()
        if not line:
            continue
        cleaned = posixpath.normpath(line)
        if len(cleaned) > 1 and cleaned.startswith("/"):
            cleaned = cleaned.lstrip("/")
        patterns.append(Pattern(line, exception, _compile(cleaned)))
    return tuple(patterns)


def excluded(path: str, patterns: tuple[Pattern, ...]) -> bool:
    """Whether `path` (slash-separated, relative to the folder) is left out."""
    parts = path.split("/")
    prefixes = ["/".join(parts[: i + 1]) for i in range(len(parts) - 1)]
    matched = False
    for pattern in patterns:
        if pattern.exception != matched:
            continue
        hit = bool(pattern.regex.match(path)) or any(pattern.regex.match(p) for p in prefixes)
        if hit:
            matched = not pattern.exception
    return matched
