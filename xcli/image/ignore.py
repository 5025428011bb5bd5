"""`.dockerignore` with Docker's syntax and meaning.

Facts followed (moby/patternmatcher at 5a6d8429a19b, `patternmatcher.go` and
`ignorefile/ignorefile.go`; Go's `path/filepath.Match` grammar, which `New` checks every pattern
against): a line starting with `#` is a comment; each line is trimmed; `!` makes an exception
that re-includes; the pattern is cleaned like Go's `filepath.Clean` and a leading `/` dropped;
`*` matches any run of characters but `/`, `?` one character but `/`, `**` any number of whole
directories (also none), `[...]` a class (`^` negates, `!` is a character), `\\` escapes; a
pattern Go's grammar or Docker's regular expression refuses is refused here, naming its line.
Not followed: POSIX classes such as `[[:alpha:]]`, which Docker's regexp reads as a class and
filepath.Match does not (Docker itself disagrees with itself there).
A path is excluded when the last pattern matching it, or matching one of its parent
directories, is not an exception (`MatchesOrParentMatches`).
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass

from xcli.errors import UserError


@dataclass(frozen=True)
class Pattern:
    text: str
    exception: bool
    regex: re.Pattern[str]


class BadPattern(ValueError):
    """A pattern Docker refuses; the message says why."""


def _compile(pattern: str) -> re.Pattern[str]:
    """The pattern as a regular expression, checked by Go's `filepath.Match` grammar (the check
    patternmatcher.go's `New` runs on every line, l.68), and refused where Docker's own regular
    expression would not compile (`compile`, l.420-431: `[` and `]` pass into Go's regexp, so
    a range such as `[z-a]` fails there). `!` inside a class is a plain character, as in Go
    (only `^` negates): Docker takes `[!]` and matches a `!` with it."""
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
        elif ch == "\\":
            if i + 1 >= len(pattern):
                raise BadPattern("it ends with a lone \\")
            i += 1
            out += re.escape(pattern[i])
        elif ch == "[":
            klass, i = _class(pattern, i + 1)
            out += klass
            continue
        else:
            out += re.escape(ch)
        i += 1
    return re.compile(f"^{out}$")


def _class(pattern: str, i: int) -> tuple[str, int]:
    """`[...]` from just after its `[`: Go's `'[' [ '^' ] { character-range } ']'`, which must
    not be empty; a range is `c`, `\\c` or `lo-hi`, `-` and `]` escaped where they are meant."""
    negated = pattern[i : i + 1] == "^"
    i += negated
    parts: list[str] = []
    while True:
        if i >= len(pattern):
            raise BadPattern("a [ is never closed (write \\[ for the character)")
        if pattern[i] == "]":
            if not parts:
                raise BadPattern("[] holds no character (write \\] for the character)")
            return "[" + "^" * negated + "".join(parts) + "]", i + 1
        low, i = _range_char(pattern, i)
        if pattern[i : i + 1] != "-":
            parts.append(re.escape(low))
            continue
        high, i = _range_char(pattern, i + 1)
        if high < low:
            raise BadPattern(f"the range {low}-{high} runs backwards")
        parts.append(f"{re.escape(low)}-{re.escape(high)}")


def _range_char(pattern: str, i: int) -> tuple[str, int]:
    if i >= len(pattern):
        raise BadPattern("a [ is never closed (write \\[ for the character)")
    ch = pattern[i]
    if ch in "-]":
        raise BadPattern(f"a {ch} inside [...] must be escaped as \\{ch}")
    if ch == "\\":
        if i + 1 >= len(pattern):
            raise BadPattern("a [ is never closed (write \\[ for the character)")
        return pattern[i + 1], i + 2
    return ch, i + 1


def parse(text: str, where: str = ".dockerignore") -> tuple[Pattern, ...]:
    """The patterns of a `.dockerignore` file's text, in order; a line Docker refuses is one
    error naming `where`, the line and the pattern.

    As ignorefile.go's ReadAll does: the first line loses a UTF-8 BOM, a line starting with `#`
    (before any trimming) is a comment, the rest is trimmed, `!` and its own spaces split off,
    the pattern cleaned and a leading `/` dropped; a lone `!` is refused as patternmatcher.go
    refuses it (l.56)."""
    patterns: list[Pattern] = []
    for number, raw in enumerate(text.removeprefix("\ufeff").split("\n"), 1):
        if raw.startswith("#"):
            continue
        line = raw.strip()
        if not line:
            continue
        exception = line.startswith("!")
        if exception:
            line = line[1:].strip()
        try:
            if not line:
                raise BadPattern('an exception "!" needs a pattern after it')
            cleaned = posixpath.normpath(line)
            if len(cleaned) > 1 and cleaned.startswith("/"):
                cleaned = cleaned.lstrip("/")
            regex = _compile(cleaned)
        except BadPattern as exc:
            raise UserError(
                f"{where} line {number}: Docker refuses the pattern '{raw.strip()}': {exc}",
                hint="fix or remove that line (Docker's own build refuses it too)",
            ) from None
        patterns.append(Pattern(line, exception, regex))
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
