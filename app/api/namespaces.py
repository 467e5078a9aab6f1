"""/namespaces/{name}: an admin's release of a namespace an instance held, so that another owner
may take it (app/instances/namespaces.py)."""

from flask.views import MethodView

from app.access.auth import login_required
from app.http.openapi import Blueprint, problems
from app.instances.namespaces import store as namespaces

blp = Blueprint(
    "namespaces",
    __name__,
    url_prefix="/namespaces",
    description="Kubernetes namespaces held by instances: one owner's until an admin releases them.",
)


@blp.route("/<name>")
class NamespaceItem(MethodView):
    @login_required(role="admin")
    @blp.response(204, description="Released: any owner may take it now.")
    @problems(blp, 403, 404, 409)
    def delete(self, name):
        """Release a namespace no instance holds (admins)"""
        namespaces.release(name)
