"""Blueprint history: every version a change replaced, its diff to another, and restoring one.

A resource: routes.py (a MethodView per path) -> schemas.py -> storage.py -> the response.
May import app.http, app.ops, app.access and what is below them, and the other resources."""
