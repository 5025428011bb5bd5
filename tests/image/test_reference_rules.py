"""The one parser of image references (xcli/image/reference.py), by the grammar of
github.com/distribution/reference (a3fb7846): the near-misses issue 37 found taken."""

from __future__ import annotations

import pytest

from xcli.errors import UserError
from xcli.image import reference


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("UPPER/Case:1", "is not lowercase components"),
        ("img@sha256:abc", "the digest must be sha256: and 64 lowercase hex digits"),
        ("img:", "the tag '' is not"),
        ("reg.example.com:70000/a", "the port 70000 is not 1-65535"),
        ("reg.example.com:0/a", "the port 0 is not 1-65535"),
        ("a..b/x", "'a..b' is not a host[:port]"),
        ("-x.com/a", "'-x.com' is not a host[:port]"),
        ("x-.com/a", "'x-.com' is not a host[:port]"),
        ("img:1\n", "whitespace or control characters"),
        (" img:1", "whitespace or control characters"),
    ],
)
def test_near_misses_are_refused(text: str, why: str) -> None:
    with pytest.raises(UserError) as info:
        reference.parse(text, what="--docker-image")
    assert why in info.value.message


@pytest.mark.parametrize(
    "text",
    [
        "python:3.10",
        "localhost:5000/a/b_c__d-e.f:v1.2",
        "reg.example.com:65535/a",
        "us-docker.pkg.dev/p/r/img@sha256:" + "a" * 64,
        "[::1]:5000/x:1",
        "my-host.example.com/x",
    ],
)
def test_references_of_the_grammar_pass(text: str) -> None:
    assert reference.parse(text, what="--docker-image")
