"""The one Jinja environment (STYLE section 8): strict, created once, over templates/.

Terraform templates never print a bare value into HCL: they pass it through the `hcl` filter,
which writes a JSON literal (valid HCL) with `${` and `%{` escaped, so Terraform never reads a
value as an interpolation or a directive.
"""

from __future__ import annotations

import json
from functools import cache
from typing import TYPE_CHECKING, Any

from xcli.resources import resource_dir

if TYPE_CHECKING:  # Jinja is imported on first render: a plain `cluster create` never renders
    import jinja2


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
def environment() -> jinja2.Environment:
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(resource_dir("templates"))),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        autoescape=False,  # shell scripts, YAML and HCL, never HTML
    )
    env.filters["hcl"] = hcl
    return env


def render(name: str, **values: Any) -> str:
    """Render templates/<name>; a missing variable is an error, never an empty string."""
    return environment().get_template(name).render(**values)
