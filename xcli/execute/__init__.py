"""The executors: the live one runs a plan through handlers, the dry-run one prints it."""
