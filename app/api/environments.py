"""/environments and /environments/{id}: where instances run, registered by admins."""

from app.access.auth import current_user, login_required
from app.environments.schemas import EnvironmentDraftSchema, EnvironmentQuery, EnvironmentSchema
from app.environments.storage import store
from app.http import crud, paging
from app.http.openapi import Blueprint

blp = Blueprint(
    "environments",
    __name__,
    url_prefix="/environments",
    description="Where instances run: a Docker Engine or a git repository Argo CD or Flux follows (admins).",
)
EXAMPLE = {"name": "shared-docker", "kind": "docker", "endpoint": "unix:///var/run/docker.sock", "interval": 60}


@blp.route("")
class EnvironmentCollection(
    crud.created(
        blp,
        store,
        EnvironmentSchema,
        EnvironmentDraftSchema,
        "environment",
        "Register an environment (where it is reached is checked before any connection)",
        role="admin",
        example=EXAMPLE,
    )
):
    @login_required(role="viewer")
    @paging.paginated(blp, EnvironmentQuery(), EnvironmentSchema, "A page of environments, newest first.")
    def get(self, args):
        """List the environments (admins: all; others: those their profiles name, their name, kind and state)"""
        return store.list(current_user(), args)


@blp.route("/<id>")
class EnvironmentItem(crud.edited(blp, store, EnvironmentSchema, "environment", EXAMPLE, {"interval": 120})):
    """One environment: read, changed, replaced, deleted."""
