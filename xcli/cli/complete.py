"""Shell completion of option values (click's `shell_complete=`).

Each function imports what it reads only when the shell asks, so `xcli --help` stays fast.
Enable with e.g. `eval "$(_XCLI_COMPLETE=bash_source xcli)"` (click's completion:
https://click.palletsprojects.com/en/stable/shell-completion/).
"""

from __future__ import annotations

import click
from click.shell_completion import CompletionItem


def accelerators(
    _ctx: click.Context, _param: click.Parameter, incomplete: str
) -> list[CompletionItem]:
    """--tpu-type, --device-type, `catalog show NAME`: the catalogue's canonical names."""
    from xcli.catalog import all_names

    text = incomplete.lower()
    return [CompletionItem(name) for name in all_names() if name.startswith(text)]


def clusters(_ctx: click.Context, _param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """--cluster: the clusters this machine knows (xcli.cluster_index), never a cloud call."""
    from xcli.cluster_index import known_names

    return [CompletionItem(name) for name in known_names() if name.startswith(incomplete)]


def families(_ctx: click.Context, _param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """`catalog list --family`: the catalogue's families."""
    from xcli.catalog import family_names

    return [CompletionItem(name) for name in family_names() if name.startswith(incomplete)]
