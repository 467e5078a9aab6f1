"""/blueprints and its sub-resources: list, create, read, change, replace, delete; the fit to a
profile, the raw definition, stars."""

from urllib.parse import quote

from flask import Response, current_app, url_for
from flask.views import MethodView

from app import definitions
from app.access.auth import current_user, login_required
from app.blueprints.schemas import (
    BlueprintDraftSchema,
    BlueprintQuery,
    BlueprintSchema,
    FitArgs,
    FitSchema,
    RenderArgs,
    RenderSchema,
)
from app.blueprints.storage import store
from app.definitions import fit
from app.definitions.render import render
from app.errors import Conflict, NotFound
from app.http import idempotency, paging, preconditions
from app.http.openapi import Blueprint, headers, problems
from app.http.preconditions import IF_MATCH, IF_NONE_MATCH, etag
from app.model import quantities
from app.model.schemas import WRITE_PARAMETERS, WriteArgs
from app.profiles.storage import store as profiles

blp = Blueprint(
    "blueprints",
    __name__,
    url_prefix="/blueprints",
    description="Application templates: a YAML definition checked per format and measured, and entitlements.",
)
EXAMPLE = {
    "name": "web",
    "version": "1.0",
    "description": "An nginx front end",
    "blueprintType": "compose",
    "yml": "services:\n  web:\n    image: nginx\n    deploy:\n      replicas: 2\n"
    "      resources:\n        limits: {memory: 256m, cpus: '0.5'}\n",
    "entitlementType": "PUBLIC",
}
EXAMPLES = {
    "compose": {"value": EXAMPLE},
    "kubernetes": {
        "value": {
            "name": "api",
            "blueprintType": "kubernetes",
            "yml": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: api}\nspec:\n  replicas: 3\n"
            "  selector: {matchLabels: {app: api}}\n  template:\n    metadata: {labels: {app: api}}\n"
            "    spec:\n      containers:\n      - name: api\n        image: example/api:1\n"
            "        resources: {limits: {memory: 512Mi, cpu: 250m}}\n",
        }
    },
}
DRY_RUN = "dryRun=true: the blueprint as it would be stored (id null); nothing is stored."


NO_STORE = {"Cache-Control": "no-store"}  # a render holds values, secrets among them
RENDER_EXAMPLE = {"values": {"REPLICAS": 3}, "profile": "6740f1c2a9e3b1d2c3f4a5b6", "maximize": "REPLICAS"}


def rendered(version, args, user):
    """The render of `version` (a blueprint or a kept version of one) that `args` ask for."""
    if version.get("yml") is None:
        raise Conflict("This version of the blueprint has no definition to render.")
    limits = quantities.limits(profiles.get(args["profile"], user)) if "profile" in args else None
    seconds = current_app.config["RENDER_SECONDS"]
    return render(version, args["values"], limits, args.get("maximize"), seconds), NO_STORE


def attachment(name, fallback):
    """A Content-Disposition (RFC 6266) naming `name`.yml: an ASCII-only `filename` and, where the
    name has other characters, their UTF-8 form in `filename*`."""
    stem = name or f"blueprint-{fallback}"
    plain = "".join(c if c.isascii() and (c.isalnum() or c in "-_.") else "_" for c in stem)[:100]
    header = f'attachment; filename="{plain}.yml"'
    if plain != stem:
        header += f"; filename*=UTF-8''{quote(stem[:100] + '.yml')}"
    return header


@blp.route("")
class BlueprintCollection(MethodView):
    @login_required(role="viewer")
    @blp.arguments(BlueprintQuery(), location="query", as_kwargs=False)
    @blp.response(
        200,
        paging.page_schema(BlueprintSchema),
        headers=headers("Link"),
        description="A page of blueprints, newest first.",
    )
    @problems(blp, 404, 422)
    def get(self, args):
        """List the blueprints the caller may read"""
        user, fitting = current_user(), None
        if "fitsProfile" in args:  # the profile must be readable: 404 otherwise
            fitting = fit.blueprints_fitting(quantities.limits(profiles.get(args["fitsProfile"], user)))
        return paging.respond_page(*store.list(user, args, fitting))

    @login_required(role="member")
    @blp.arguments(BlueprintSchema(), examples=EXAMPLES)
    @blp.arguments(WriteArgs(), location="query", as_kwargs=True)
    @blp.response(
        201,
        BlueprintSchema,
        headers=headers("Location", "ETag", "Idempotent-Replayed"),
        description="The new blueprint.",
    )
    @blp.alt_response(200, schema=BlueprintDraftSchema, description=DRY_RUN)
    @blp.doc(parameters=[idempotency.HEADER, WRITE_PARAMETERS])
    @problems(blp, 400, 403, 409, 413, 415, 422)
    def post(self, fields, dryRun):
        """Create a blueprint"""
        if dryRun:
            return idempotency.dry_run(store, fields, current_user()), 200
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
    @blp.arguments(WriteArgs(), location="query", as_kwargs=True)
    @blp.response(200, BlueprintSchema, headers=headers("ETag"), description="The changed blueprint.")
    @blp.doc(parameters=[IF_MATCH, WRITE_PARAMETERS])
    @problems(blp, 400, 403, 404, 412, 413, 415, 422)
    def patch(self, changes, id, dryRun):
        """Change the fields sent of a blueprint"""
        doc = store.update(id, current_user(), changes, preconditions.if_match(), dry_run=dryRun)
        return doc, {} if dryRun else {"ETag": etag(doc)}

    @login_required(role="member")
    @blp.arguments(BlueprintSchema(), example=EXAMPLE)
    @blp.arguments(WriteArgs(), location="query", as_kwargs=True)
    @blp.response(200, BlueprintSchema, headers=headers("ETag"), description="The replaced blueprint.")
    @blp.doc(parameters=[IF_MATCH, WRITE_PARAMETERS])
    @problems(blp, 400, 403, 404, 412, 413, 415, 422)
    def put(self, fields, id, dryRun):
        """Replace every writable field of a blueprint"""
        doc = store.update(id, current_user(), fields, preconditions.if_match(), dry_run=dryRun)
        return doc, {} if dryRun else {"ETag": etag(doc)}

    @login_required(role="member")
    @blp.response(204, description="The blueprint is gone.")
    @blp.doc(parameters=[IF_MATCH])
    @problems(blp, 403, 404, 412)
    def delete(self, id):
        """Delete a blueprint"""
        store.delete(id, current_user(), preconditions.if_match())


@blp.route("/<id>/fit")
class BlueprintFit(MethodView):
    @login_required(role="viewer")
    @blp.arguments(FitArgs(), location="query", as_kwargs=False)
    @blp.response(200, FitSchema, description="Whether the blueprint fits the profile's caps, resource by resource.")
    @problems(blp, 404, 422)
    def get(self, args, id):
        """Check whether a blueprint fits a profile"""
        user = current_user()
        requirements = definitions.requirements_of(store.get(id, user))
        profile = profiles.get(args["profile"], user) if "profile" in args else profiles.default_of(user)
        return fit.fit(requirements, quantities.limits(profile))


@blp.route("/<id>/render")
class BlueprintRender(MethodView):
    @login_required(role="viewer")
    @blp.arguments(RenderArgs(), example=RENDER_EXAMPLE)
    @blp.response(200, RenderSchema, headers=headers("Cache-Control"), description="The definition filled in.")
    @problems(blp, 400, 404, 409, 413, 415, 422)
    def post(self, args, id):
        """Render a blueprint's template with values, measured and fitted to a profile"""
        user = current_user()
        return rendered(store.get(id, user), args, user)


@blp.route("/<id>/yml")
@blp.route("/<id>/yaml", endpoint="BlueprintDefinitionYaml")  # the path DCHQ's clients call
class BlueprintDefinition(MethodView):
    @login_required(role="viewer")
    @blp.response(
        200,
        content_type="application/yaml",
        headers=headers("ETag", "Content-Disposition"),
        description="The definition, as stored.",
    )
    @blp.alt_response(304, description="Not modified: the If-None-Match tag is current.", headers=headers("ETag"))
    @blp.doc(parameters=[IF_NONE_MATCH])
    @problems(blp, 404)
    def get(self, id):
        """Download a blueprint's definition"""
        doc = store.get(id, current_user())
        if doc.get("yml") is None:
            raise NotFound("This blueprint has no definition.")
        if preconditions.is_current(doc):
            return Response(status=304), {"ETag": etag(doc)}
        download = {"ETag": etag(doc), "Content-Disposition": attachment(doc.get("name"), str(doc["_id"]))}
        return Response(doc["yml"], mimetype="application/yaml"), download


@blp.route("/<id>/star")
class BlueprintStar(MethodView):
    @login_required(role="viewer")
    @blp.response(204, description="The caller has starred it (whether or not they had before).")
    @problems(blp, 404)
    def put(self, id):
        """Star a blueprint"""
        store.star(id, current_user(), starred=True)

    @login_required(role="viewer")
    @blp.response(204, description="The caller has not starred it (whether or not they had before).")
    @problems(blp, 404)
    def delete(self, id):
        """Unstar a blueprint"""
        store.star(id, current_user(), starred=False)
