"""Blueprints: application templates, readable by their owner, everyone, or a named list; their
history (history/) and their fit to a profile (fitting.py).

A resource: routes.py (a MethodView per path) -> schemas.py -> storage.py -> the response.
Its store touches its own collection only, and asks other stores for what it needs of theirs;
the layers (schemas, stores, what joins resources, routes) are tests/test_layers.py's."""
