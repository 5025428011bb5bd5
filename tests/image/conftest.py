from tests.support.registry import registry, token_registry  # noqa: F401 (fixtures)
