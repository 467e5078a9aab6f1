"""Instances: what a team deployed from a blueprint, admitted against a profile's room and counted
in its usage (app/profiles/usage.py), with the rendered definition kept byte for byte.

A resource: routes.py (a MethodView per path) -> schemas.py -> storage.py -> the response.
May import app.http, app.ops, app.access and what is below them, and the other resources."""
