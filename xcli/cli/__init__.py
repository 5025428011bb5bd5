"""Click commands: flags in, frozen requests to the core, results rendered. Nothing imports it."""
