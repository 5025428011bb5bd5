"""The application layer: one use case per command, between `cli/` and the rest.

A use case takes a frozen request (what the user asked for, already parsed) and the
dependencies it reaches the outside through (`deps.Deps`: the provider registry and through it
each provider's ClusterAccess, how a plan is run or printed, the confirmation callback, the
broadcast runner, output sinks, the clocks). It returns a plain result that `cli/` renders.
Nothing here prints, reads flags or imports click.
"""
