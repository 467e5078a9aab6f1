"""Instances: what a team deployed from a blueprint, admitted against a profile's room and counted
in its usage (admission.py, over the profile store's ledger), with the rendered definition kept
byte for byte.

A resource: routes.py (a MethodView per path) -> schemas.py -> storage.py -> the response.
Its store touches its own collection only, and asks other stores for what it needs of theirs;
the layers (schemas, stores, what joins resources, routes) are tests/test_layers.py's."""
