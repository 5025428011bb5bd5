"""The one Jinja environment: strict (StrictUndefined), created once, templates from templates/.

Templates never print a bare value into a file whose syntax could break: Terraform templates
pass every value through the `hcl` filter, which writes a JSON literal (valid HCL) with `${` and
`%{` escaped so Terraform never reads a user value as an interpolation or a directive.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from xcli.resources import resource_dir


def escape_template(value: Any) -> Any:
    """Escape Terraform template sequences in every string of a value."""
    if isinstance(value, str):
        return value.replace("${", "$${").replace("%{", "%%{")
    if isinstance(value, dict):
        return {k: escape_template(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [escape_template(v) for v in value]
    return value


def hcl(value: Any) -> str:
    """A Python value as an HCL literal: JSON, with Terraform's template escapes."""
    return json.dumps(escape_template(value), ensure_ascii=False, sort_keys=True)


@cache
def environment() -> Any:
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(resource_dir("templates"))),
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["hcl"] = hcl
    return env


def render(name: str, **context: Any) -> str:
    """Render templates/<name> with `context`; a missing variable is an error, never blank."""
    text: str = environment().get_template(name).render(**context)
    return text
