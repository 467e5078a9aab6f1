"""Profiles: named sets of resource caps; at most one per owner is the default. A profile is read
with its usage and the ledger of the changes of it under way, kept in a document of their own
(storage.py; ledgers.py that document; usage.py the arithmetic).

A resource: routes.py (a MethodView per path) -> schemas.py -> storage.py -> the response.
Its store touches its own collection only, and asks other stores for what it needs of theirs;
the layers (schemas, stores, what joins resources, routes) are tests/test_layers.py's."""
