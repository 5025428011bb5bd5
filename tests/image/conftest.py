from tests.support.registry import jwt_registry, registry, token_registry  # noqa: F401 (fixtures)
