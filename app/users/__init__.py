"""/users and /tokens: the API of accounts (routes.py). The accounts themselves (users.py) and
their bodies (schemas.py) are in app/access/, which reads credentials with them, so this package
holds the routes alone, in the resources' layer (tests/test_layers.py)."""
