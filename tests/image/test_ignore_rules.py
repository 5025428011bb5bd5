"""`.dockerignore` lines as Docker reads them (moby/patternmatcher 5a6d8429a19b: `New` checks each
pattern with Go's filepath.Match, `compile` hands `[...]` to Go's regexp), and a script folder's
names that cannot go into an image: each refused with one error, never a crash (issue 37)."""

from __future__ import annotations

from pathlib import Path

import pytest

from xcli.errors import UserError
from xcli.image import context, ignore
from xcli.user_files import expand_home


@pytest.mark.parametrize(
    ("patterns", "path", "out"),
    [
        ("[!]", "!", True),  # Go: `!` is a plain character in a class; Docker takes `[!]`
        ("[!]", "a", False),
        ("[!a]x", "ax", True),
        ("[!a]x", "!x", True),
        ("[!a]x", "bx", False),
        ("[^a]x", "bx", True),  # only `^` negates
        ("[^a]x", "ax", False),
        ("[a\\-c]", "-", True),  # an escaped `-` is the character
        ("[a\\-c]", "b", False),
        ("[a-c]", "b", True),
        ("\\[x\\]", "[x]", True),
        ("x]", "x]", True),  # a `]` outside a class is the character
        (" # not a comment", "# not a comment", True),  # only `#` in column 1 is a comment
        ("\ufeffdata", "data", True),  # the BOM of the first line is dropped
    ],
)
def test_patterns_docker_takes_mean_what_they_mean_there(
    patterns: str, path: str, out: bool
) -> None:
    assert ignore.excluded(path, ignore.parse(patterns)) is out


@pytest.mark.parametrize(
    ("line", "why"),
    [
        ("[z-a]", "the range z-a runs backwards"),
        ("[]", "[] holds no character"),
        ("[", "a [ is never closed"),
        ("data[", "a [ is never closed"),
        ("[ab", "a [ is never closed"),
        ("[a-]", "a ] inside [...] must be escaped"),
        ("[-a]", "a - inside [...] must be escaped"),
        ("x\\", "it ends with a lone \\"),
        ("[\\", "a [ is never closed"),
        ("!", 'an exception "!" needs a pattern after it'),
        ("! ", 'an exception "!" needs a pattern after it'),
    ],
)
def test_patterns_docker_refuses_are_one_error_with_the_line(line: str, why: str) -> None:
    with pytest.raises(UserError) as info:
        ignore.parse(f"ok\n# comment\n{line}\n", where="DIR/.dockerignore")
    assert info.value.message.startswith(
        f"DIR/.dockerignore line 3: Docker refuses the pattern '{line.strip()}': {why}"
    )
    assert info.value.hint


def test_a_bad_pattern_stops_the_scan_before_anything_is_read(tmp_path: Path) -> None:
    (tmp_path / "train.py").write_text("print(1)\n")
    (tmp_path / ".dockerignore").write_text("*.pyc\n[z-a]\n")
    with pytest.raises(UserError, match=r"\.dockerignore line 2: Docker refuses"):
        context.scan(tmp_path)


def test_a_name_that_is_not_utf8_is_refused_by_name(tmp_path: Path) -> None:
    root = tmp_path / "app"
    (root / "sub").mkdir(parents=True)
    (root / "train.py").write_text("print(1)\n")
    (root / "sub").joinpath(b"caf\xe9.txt".decode("utf-8", "surrogateescape")).write_text("x")
    with pytest.raises(UserError) as info:
        context.scan(root)
    assert (
        info.value.message
        == f"{root}/sub/caf\ufffd.txt: the name is not UTF-8, which an image's file names must be"
    )
    str(info.value.message).encode("utf-8")  # printable as it is
    (root / ".dockerignore").write_text("sub\n")
    scanned = context.scan(root)  # left out: nothing of it goes into a tar
    assert scanned.excluded == ("sub",)
    assert [e.path for e in scanned.entries] == [".dockerignore", "train.py"]


def test_a_home_of_a_user_this_machine_does_not_know_is_one_error() -> None:
    with pytest.raises(UserError) as info:
        expand_home("~no-such-user-xcli/app", "--script-dir")
    assert info.value.message == (
        "--script-dir ~no-such-user-xcli/app: there is no user 'no-such-user-xcli' on this machine"
    )
    assert expand_home("~/app", "--script-dir") == Path.home() / "app"
