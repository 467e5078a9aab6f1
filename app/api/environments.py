"""/environments and /environments/{id}: where instances run, registered by admins."""

from flask.views import MethodView

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
class EnvironmentCollection(MethodView):
    @login_required(role="viewer")
    @paging.paginated(blp, EnvironmentQuery(), EnvironmentSchema, "A page of environments, newest first.")
    def get(self, args):
        """List the environments (admins: all; others: those their profiles name, their name, kind and state)"""
        return store.list(current_user(), args)

    @login_required(role="admin")
    @crud.creates(blp, EnvironmentSchema, EnvironmentDraftSchema, "environment", example=EXAMPLE)
    def post(self, fields, dryRun):
        """Register an environment (where it is reached is checked before any connection)"""
        return crud.answer_create(store, fields, dryRun, "environments.EnvironmentItem")


@blp.route("/<id>")
class EnvironmentItem(crud.edited(blp, store, EnvironmentSchema, "environment", EXAMPLE, {"interval": 120})):
    """One environment: read, changed, replaced, deleted."""
