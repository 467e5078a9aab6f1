"""Profiles: named sets of resource caps; at most one per owner is the default.

A resource: routes.py (a MethodView per path) -> schemas.py -> storage.py -> the response.
May import app.http, app.ops, app.access and what is below them, and the other resources."""
