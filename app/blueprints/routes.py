"""/blueprints and /blueprints/{id}: list, create, read, change, replace, delete."""

from flask import Response, url_for
from flask.views import MethodView

from app import idempotency, pagination, preconditions
from app.auth import current_user, login_required
from app.blueprints.schemas import BlueprintQuery, BlueprintSchema
from app.blueprints.storage import store
from app.openapi import Blueprint, headers, problems
from app.preconditions import IF_MATCH, IF_NONE_MATCH, etag

blp = Blueprint(
    "blueprints",
    __name__,
    url_prefix="/blueprints",
    description="Application templates with a YAML definition and entitlements.",
)
EXAMPLE = {
    "name": "web",
    "version": "1.0",
    "description": "An nginx front end",
    "blueprintType": "compose",
    "yml": "services:\n  web:\n    image: nginx\n",
    "entitlementType": "PUBLIC",
}


@blp.route("")
class BlueprintCollection(MethodView):
    @login_required(role="viewer")
    @blp.arguments(BlueprintQuery(), location="query", as_kwargs=False)
    @blp.response(
        200,
        pagination.page_schema(BlueprintSchema),
        headers=headers("Link"),
        description="A page of blueprints, newest first.",
    )
    @problems(blp, 422)
    def get(self, args):
        """List the blueprints the caller may read"""
        return pagination.respond(*store.list(current_user(), args))

    @login_required(role="member")
    @blp.arguments(BlueprintSchema(), example=EXAMPLE)
    @blp.response(
        201,
        BlueprintSchema,
        headers=headers("Location", "ETag", "Idempotent-Replayed"),
        description="The new blueprint.",
    )
    @blp.doc(parameters=[idempotency.HEADER])
    @problems(blp, 400, 403, 409, 413, 415, 422)
    def post(self, fields):
        """Create a blueprint"""
        doc, replay = idempotency.create(store, fields, current_user())
        return doc, {**replay, "Location": url_for("blueprints.BlueprintItem", id=doc["_id"]), "ETag": etag(doc)}


@blp.route("/<id>")
class BlueprintItem(MethodView):
    @login_required(role="viewer")
    @blp.response(200, BlueprintSchema, headers=headers("ETag"), description="The blueprint.")
    @blp.alt_response(304, description="Not modified: the If-None-Match tag is current.", headers=headers("ETag"))
    @blp.doc(parameters=[IF_NONE_MATCH])
    @problems(blp, 404)
    def get(self, id):
        """Read one blueprint"""
        doc = store.get(id, current_user())
        if preconditions.is_current(doc):
            return Response(status=304), {"ETag": etag(doc)}
        return doc, {"ETag": etag(doc)}

    @login_required(role="member")
    @blp.arguments(BlueprintSchema(partial=True), example={"name": "web"})
    @blp.response(200, BlueprintSchema, headers=headers("ETag"), description="The changed blueprint.")
    @blp.doc(parameters=[IF_MATCH])
    @problems(blp, 400, 403, 404, 412, 413, 415, 422)
    def patch(self, changes, id):
        """Change the fields sent of a blueprint"""
        doc = store.update(id, current_user(), changes, preconditions.if_match())
        return doc, {"ETag": etag(doc)}

    @login_required(role="member")
    @blp.arguments(BlueprintSchema(), example=EXAMPLE)
    @blp.response(200, BlueprintSchema, headers=headers("ETag"), description="The replaced blueprint.")
    @blp.doc(parameters=[IF_MATCH])
    @problems(blp, 400, 403, 404, 412, 413, 415, 422)
    def put(self, fields, id):
        """Replace every writable field of a blueprint"""
        doc = store.update(id, current_user(), fields, preconditions.if_match())
        return doc, {"ETag": etag(doc)}

    @login_required(role="member")
    @blp.response(204, description="The blueprint is gone.")
    @blp.doc(parameters=[IF_MATCH])
    @problems(blp, 403, 404, 412)
    def delete(self, id):
        """Delete a blueprint"""
        store.delete(id, current_user(), preconditions.if_match())
