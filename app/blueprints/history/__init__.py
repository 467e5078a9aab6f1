"""A blueprint's history: every version a change replaced, its diff to another, and restoring
one; part of the blueprints resource (its routes mount under /blueprints/{id}).

routes.py (a MethodView per path) -> schemas.py -> storage.py -> the response. The blueprint
store keeps the version a change replaces through storage.py, which owns `revisions`."""
