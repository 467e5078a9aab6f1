"""/blueprints/{id}/revisions, /revisions/{rev}, /revisions/{rev}/restore and /diff: a blueprint's
history, readable by whoever may read the blueprint; restoring is a change (owner or admin)."""

from flask.views import MethodView

from app.access.auth import current_user, login_required
from app.api.blueprints import renders
from app.blueprints.history.schemas import DiffArgs, DiffSchema, RevisionPageArgs, sign
from app.blueprints.history.storage import diff, writable
from app.blueprints.history.storage import store as history
from app.blueprints.schemas import BlueprintSchema
from app.blueprints.storage import store
from app.http import crud, paging, preconditions
from app.http.openapi import Blueprint, headers, problems
from app.http.parser import bodiless
from app.http.preconditions import IF_MATCH, etag
from app.joins.to_profile import render_answer

blp = Blueprint("revisions", __name__, url_prefix="/blueprints", description="Every version of a blueprint.")


@blp.route("/<id>/revisions")
class Revisions(MethodView):
    @login_required(role="viewer")
    @paging.paginated(blp, RevisionPageArgs(), BlueprintSchema, "Versions, newest (current) first.", sign)
    def get(self, args, id):
        """List the kept versions of a blueprint"""
        user = current_user()
        items, below = history.page(store.readable(id, user), args["limit"], args.get("cursor"))
        return [store.seen_by(item, user) for item in items], below


@blp.route("/<id>/revisions/<int:rev>")
class Revision(MethodView):
    @login_required(role="viewer")
    @blp.response(200, BlueprintSchema, description="That version, as it was stored.")
    @problems(blp, 404)
    def get(self, id, rev):
        """Read one version of a blueprint"""
        user = current_user()
        return store.seen_by(history.version(store.readable(id, user), rev), user)


@blp.route("/<id>/revisions/<int:rev>/restore")
class RevisionRestore(MethodView):
    @login_required(role="member")
    @blp.response(200, BlueprintSchema, headers=headers("ETag"), description="The new current version.")
    @blp.doc(parameters=[IF_MATCH])
    @problems(blp, 403, 404, 412, 415, 422)
    @bodiless
    def post(self, id, rev):
        """Make a kept version current again (a new version with its writable fields)"""
        user = current_user()
        restored = writable(history.version(store.readable(id, user), rev))
        doc = store.update(id, user, restored, preconditions.if_match())
        return store.seen_by(doc, user), {"ETag": etag(doc)}


@blp.route("/<id>/revisions/<int:rev>/render")
class RevisionRender(MethodView):
    @login_required(role="viewer")
    @renders(blp, "That version filled in.")
    def post(self, args, id, rev):
        """Render a kept version of a blueprint's template"""
        user = current_user()
        return render_answer(history.version(store.readable(id, user), rev), args, user)


@blp.route("/<id>/diff")
class Diff(MethodView):
    @login_required(role="viewer")
    @crud.computes(blp, DiffArgs, DiffSchema, "What changed from one version to another.")
    def get(self, args, id):
        """Compare two versions of a blueprint (default: the previous and the current)"""
        current = store.readable(id, current_user())
        newer = args.get("newer", current["rev"])
        older = args.get("older", max(newer - 1, 1))
        return diff(history.version(current, older), history.version(current, newer))
