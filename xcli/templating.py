"""The one Jinja environment (STYLE section 8): strict, created once, over templates/."""

from __future__ import annotations

from functools import cache
from typing import Any

import jinja2

from xcli.resources import resource_dir


@cache
def environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(resource_dir("templates"))),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        autoescape=False,  # shell scripts and YAML, never HTML
    )


def render(name: str, **values: Any) -> str:
    """Render templates/<name>; a missing variable is an error, never an empty string."""
    return environment().get_template(name).render(**values)
