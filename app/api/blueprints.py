"""/blueprints and its sub-resources: list, create, read, change, replace, delete; the fit to a
profile, the raw definition, stars."""

import re
from urllib.parse import quote

from flask import Response
from flask.views import MethodView

from app.access.auth import current_user, login_required
from app.blueprints.schemas import (
    RENDER_EXAMPLE,
    BlueprintDraftSchema,
    BlueprintQuery,
    BlueprintSchema,
    FitArgs,
    FitSchema,
    RenderArgs,
    RenderSchema,
)
from app.blueprints.storage import store
from app.errors import NotFound
from app.http import crud, paging
from app.http.openapi import Blueprint, headers, problems
from app.http.parser import bodiless
from app.joins import to_profile

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


def renders(blp, description):
    """A render's declarations: its body, the definition filled in, never stored by a cache."""

    def declare(view):
        view = problems(blp, 400, 404, 409, 413, 415, 422)(view)
        view = blp.response(200, RenderSchema, headers=headers("Cache-Control"), description=description)(view)
        return blp.arguments(RenderArgs(), example=RENDER_EXAMPLE)(view)

    return declare


def attachment(name, fallback):
    """A Content-Disposition (RFC 6266) naming `name`.yml: an ASCII-only `filename` and, where the
    name has other characters, their UTF-8 form in `filename*`; a slash is no folder in either."""
    stem = re.sub(r"[/\\]", "_", name) if name else f"blueprint-{fallback}"
    plain = "".join(c if c.isascii() and (c.isalnum() or c in "-_.") else "_" for c in stem)[:100]
    header = f'attachment; filename="{plain}.yml"'
    if plain != stem:
        header += f"; filename*=UTF-8''{quote(stem[:100] + '.yml')}"
    return header


@blp.route("")
class BlueprintCollection(
    crud.created(
        blp, store, BlueprintSchema, BlueprintDraftSchema, "blueprint", "Create a blueprint", examples=EXAMPLES
    )
):
    @login_required(role="viewer")
    @paging.paginated(blp, BlueprintQuery(), BlueprintSchema, "A page of blueprints, newest first.")
    def get(self, args):
        """List the blueprints the caller may read"""
        user = current_user()
        return store.list(user, args, to_profile.blueprints_fitting(args, user))


@blp.route("/<id>")
class BlueprintItem(crud.edited(blp, store, BlueprintSchema, "blueprint", EXAMPLE, {"name": "web"})):
    """One blueprint: read, changed, replaced, deleted."""


@blp.route("/<id>/fit")
class BlueprintFit(MethodView):
    @login_required(role="viewer")
    @crud.computes(blp, FitArgs, FitSchema, "Whether the blueprint fits the profile's caps, resource by resource.")
    def get(self, args, id):
        """Check whether a blueprint fits a profile"""
        user = current_user()
        return to_profile.fit_of(store.readable(id, user), args, user)


@blp.route("/<id>/render")
class BlueprintRender(MethodView):
    @login_required(role="viewer")
    @renders(blp, "The definition filled in.")
    def post(self, args, id):
        """Render a blueprint's template with values, measured and fitted to a profile"""
        user = current_user()
        return to_profile.render_answer(store.readable(id, user), args, user)


@blp.route("/<id>/yml")
@blp.route("/<id>/yaml", endpoint="BlueprintDefinitionYaml")  # the path DCHQ's clients call
class BlueprintDefinition(MethodView):
    @login_required(role="viewer")
    @crud.downloads(blp, "The definition, as stored.", "Content-Disposition")
    def get(self, id):
        """Download a blueprint's definition"""
        doc = store.readable(id, current_user())
        if doc.get("yml") is None:
            raise NotFound("This blueprint has no definition.")
        download = {"Content-Disposition": attachment(doc.get("name"), str(doc["_id"]))}
        return crud.answer_read(doc, Response(doc["yml"], mimetype="application/yaml"), download)


@blp.route("/<id>/star")
class BlueprintStar(MethodView):
    @login_required(role="viewer")
    @blp.response(204, description="The caller has starred it (whether or not they had before).")
    @problems(blp, 404, 415)
    @bodiless
    def put(self, id):
        """Star a blueprint"""
        store.star(id, current_user(), starred=True)

    @login_required(role="viewer")
    @blp.response(204, description="The caller has not starred it (whether or not they had before).")
    @problems(blp, 404)
    def delete(self, id):
        """Unstar a blueprint"""
        store.star(id, current_user(), starred=False)
