"""A blueprint's history: every version a change replaced, its diff to another, and restoring
one; part of the blueprints resource (its routes, app/api/revisions.py, mount under
/blueprints/{id}). The blueprint store keeps the version a change replaces through storage.py,
which owns `revisions`."""
