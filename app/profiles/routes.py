"""/profiles and /profiles/{id}: list, create, read, change, replace, delete."""

from flask import Response, url_for
from flask.views import MethodView

from app import definitions
from app.access.auth import current_user, login_required
from app.blueprints.storage import store as blueprints
from app.definitions import fit
from app.http import idempotency, paging, preconditions
from app.http.openapi import Blueprint, headers, problems
from app.http.preconditions import IF_MATCH, IF_NONE_MATCH, etag
from app.model.schemas import WRITE_PARAMETERS, WriteArgs
from app.profiles.schemas import ProfileDraftSchema, ProfileQuery, ProfileSchema
from app.profiles.storage import store

blp = Blueprint(
    "profiles",
    __name__,
    url_prefix="/profiles",
    description="Named sets of resource caps; at most one default per owner.",
)
EXAMPLE = {
    "name": "small",
    "defaultProfile": True,
    "memoryCap": "512Mi",
    "cpuCap": "500m",
    "containerCap": "10",
    "storageCap": "20Gi",
}
DRY_RUN = "dryRun=true: the profile as it would be stored (id null); nothing is stored."


@blp.route("")
class ProfileCollection(MethodView):
    @login_required(role="viewer")
    @blp.arguments(ProfileQuery(), location="query", as_kwargs=False)
    @blp.response(
        200,
        paging.page_schema(ProfileSchema),
        headers=headers("Link"),
        description="A page of profiles, newest first.",
    )
    @problems(blp, 404, 422)
    def get(self, args):
        """List the profiles the caller may read"""
        user, fitting = current_user(), None
        if "fits" in args:  # the blueprint must be readable: 404 otherwise
            fitting = fit.profiles_fitted_by(definitions.requirements_of(blueprints.get(args["fits"], user)))
        return paging.respond_page(*store.list(user, args, fitting))

    @login_required(role="member")
    @blp.arguments(ProfileSchema(), example=EXAMPLE)
    @blp.arguments(WriteArgs(), location="query", as_kwargs=True)
    @blp.response(
        201,
        ProfileSchema,
        headers=headers("Location", "ETag", "Idempotent-Replayed"),
        description="The new profile.",
    )
    @blp.alt_response(200, schema=ProfileDraftSchema, description=DRY_RUN)
    @blp.doc(parameters=[idempotency.HEADER, WRITE_PARAMETERS])
    @problems(blp, 400, 403, 409, 413, 415, 422)
    def post(self, fields, dryRun):
        """Create a profile"""
        if dryRun:
            return idempotency.dry_run(store, fields, current_user()), 200
        doc, replay = idempotency.create(store, fields, current_user())
        return doc, {**replay, "Location": url_for("profiles.ProfileItem", id=doc["_id"]), "ETag": etag(doc)}


@blp.route("/<id>")
class ProfileItem(MethodView):
    @login_required(role="viewer")
    @blp.response(200, ProfileSchema, headers=headers("ETag"), description="The profile.")
    @blp.alt_response(304, description="Not modified: the If-None-Match tag is current.", headers=headers("ETag"))
    @blp.doc(parameters=[IF_NONE_MATCH])
    @problems(blp, 404)
    def get(self, id):
        """Read one profile"""
        doc = store.get(id, current_user())
        if preconditions.is_current(doc):
            return Response(status=304), {"ETag": etag(doc)}
        return doc, {"ETag": etag(doc)}

    @login_required(role="member")
    @blp.arguments(ProfileSchema(partial=True), example={"name": "small"})
    @blp.arguments(WriteArgs(), location="query", as_kwargs=True)
    @blp.response(200, ProfileSchema, headers=headers("ETag"), description="The changed profile.")
    @blp.doc(parameters=[IF_MATCH, WRITE_PARAMETERS])
    @problems(blp, 400, 403, 404, 412, 413, 415, 422)
    def patch(self, changes, id, dryRun):
        """Change the fields sent of a profile"""
        doc = store.update(id, current_user(), changes, preconditions.if_match(), dry_run=dryRun)
        return doc, {} if dryRun else {"ETag": etag(doc)}

    @login_required(role="member")
    @blp.arguments(ProfileSchema(), example=EXAMPLE)
    @blp.arguments(WriteArgs(), location="query", as_kwargs=True)
    @blp.response(200, ProfileSchema, headers=headers("ETag"), description="The replaced profile.")
    @blp.doc(parameters=[IF_MATCH, WRITE_PARAMETERS])
    @problems(blp, 400, 403, 404, 412, 413, 415, 422)
    def put(self, fields, id, dryRun):
        """Replace every writable field of a profile"""
        doc = store.update(id, current_user(), fields, preconditions.if_match(), dry_run=dryRun)
        return doc, {} if dryRun else {"ETag": etag(doc)}

    @login_required(role="member")
    @blp.response(204, description="The profile is gone.")
    @blp.doc(parameters=[IF_MATCH])
    @problems(blp, 403, 404, 412)
    def delete(self, id):
        """Delete a profile"""
        store.delete(id, current_user(), preconditions.if_match())
