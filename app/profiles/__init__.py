"""Profiles: named sets of resource caps; at most one per owner is the default. A profile holds its
usage and the ledger of the changes of it under way (storage.py; usage.py the arithmetic).

A resource: routes.py (a MethodView per path) -> schemas.py -> storage.py -> the response.
Its store touches its own collection only, and asks other stores for what it needs of theirs;
the layers (schemas, stores, what joins resources, routes) are tests/test_layers.py's."""
