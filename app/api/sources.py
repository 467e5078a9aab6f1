"""/sources, /sources/{id}, /sources/{id}/sync and /sources/{id}/webhook: catalogs followed from
git, synced on request, on a schedule and on a push."""

import orjson
from flask import current_app, request
from flask.views import MethodView

from app.access import sealing
from app.access.auth import current_user, login_required
from app.api.jobs import accepted
from app.errors import BadRequest, NotFound, Unauthorized
from app.http import crud, paging
from app.http.openapi import Blueprint, headers, problems
from app.http.parser import raw_json_body
from app.jobs.schemas import JobSchema
from app.model.fields import Id
from app.sources import sync, webhooks
from app.sources.schemas import CatalogSourceSchema, SourceQuery, SyncArgs, WebhookAnswerSchema
from app.sources.storage import store
from app.storage.resource_store import object_id

blp = Blueprint(
    "sources", __name__, url_prefix="/sources", description="Catalogs followed from git: synced, scheduled, pushed."
)
EXAMPLE = {
    "url": "https://github.com/Dokploy/templates.git",
    "ref": "main",
    "path": "blueprints",
    "format": "dokploy",
    "interval": 3600,
    "secret": "a-long-random-webhook-secret",
}
NOT_SIGNED = "No source with that id whose webhook secret signed this delivery."


class CatalogSourceDraftSchema(CatalogSourceSchema):
    id = Id(draft=True)


@blp.route("")
class SourceCollection(
    crud.created(
        blp,
        store,
        CatalogSourceSchema,
        CatalogSourceDraftSchema,
        "source",
        "Follow a catalog in git (its URL is checked before any connection)",
        example=EXAMPLE,
    )
):
    @login_required(role="viewer")
    @paging.paginated(blp, SourceQuery(), CatalogSourceSchema, "A page of sources, newest first.")
    def get(self, args):
        """List the sources the caller owns (admins: all)"""
        return store.list(current_user(), args)


@blp.route("/<id>")
class SourceItem(crud.edited(blp, store, CatalogSourceSchema, "source", EXAMPLE, {"interval": 900})):
    """One source: read, changed, replaced, deleted."""


@blp.route("/<id>/sync")
class SourceSync(MethodView):
    @login_required(role="member")
    @blp.arguments(SyncArgs(), example={"force": False})
    @blp.response(202, JobSchema, headers=headers("Location"), description="The sync's job (the one running, if any).")
    @problems(blp, 400, 403, 404, 413, 415, 422)
    def post(self, args, id):
        """Sync a source now: import what changed at its ref"""
        user = current_user()
        return accepted(sync.start(store.checked(id, user, None), user, args["force"]))


@blp.route("/<id>/webhook")
class SourceWebhook(MethodView):
    @blp.response(202, WebhookAnswerSchema, description="Taken: the sync it started, or why it needs none.")
    @blp.doc(requestBody={"required": True, "content": {"application/json": {"schema": {"type": "object"}}}})
    @problems(blp, 400, 401, 413, 415)
    def post(self, id):
        """A forge's push (GitHub, GitLab, Gitea), signed with the source's secret: no credentials"""
        body = raw_json_body(request)
        try:
            doc = store.stored(object_id(id, "source"))
        except NotFound:  # an id that names nothing is the same 401 as a bad signature
            doc = None
        secret = doc and _secret_of(doc)
        if secret is None or not webhooks.signed(request.headers, body, secret):
            raise Unauthorized(NOT_SIGNED)
        try:
            payload = orjson.loads(body)
        except orjson.JSONDecodeError:
            raise BadRequest("The body is not valid JSON.") from None
        if not webhooks.is_push(request.headers):
            return {"job": None, "detail": "Not a push: nothing to sync."}
        if not webhooks.moves(payload, doc["ref"]):
            return {"job": None, "detail": "A push to another ref: nothing to sync."}
        if not store.delivered(doc["_id"], webhooks.delivery(request.headers, body)):
            return {"job": None, "detail": "This delivery was taken already."}
        return {"job": sync.start(doc), "detail": "Syncing."}


def _secret_of(doc):
    """The source's webhook secret, None when it has none or it no longer opens."""
    try:
        return sealing.unsealed(doc, "secret")
    except ValueError:
        current_app.logger.warning("source %s: its webhook secret no longer opens", doc["_id"])
        return None
