"""What the resources' list, create, read, change and delete answer alike: a dry run, Location
and ETag, a 304 (`answer_*`), the descriptions their declarations share, and the query a change
takes. Each route writes out its own declarations (access, body and query, responses,
problems)."""

from collections.abc import Mapping

import marshmallow as ma
from flask import Response, has_request_context, request, url_for

from app.access.auth import current_user
from app.http import idempotency, preconditions
from app.http.preconditions import etag
from app.model.schemas import Schema, WriteArgs

DRY_RUN = "dryRun=true: the {} as it would be stored (id null); nothing is stored."
NOT_MODIFIED = "Not modified: the If-None-Match tag is current."
CREATED = ("Location", "ETag", "Idempotent-Replayed")


class EchoedId(Schema):
    """A resource's body (or a change's query), which may carry back the id of the path it is sent
    to, as DCHQ's clients send it (its Node SDK's updateProfileById, in the body and in the query):
    that one is taken as not sent; any other `id` is the read-only or unknown field it is."""

    @ma.pre_load
    def _path_id(self, data, **kwargs):
        path_id = (request.view_args or {}).get("id") if has_request_context() else None
        if isinstance(data, Mapping) and path_id is not None and data.get("id") == path_id:
            return {key: data[key] for key in data if key != "id"}  # a query's is webargs' proxy of a MultiDict
        return data


class ChangeArgs(EchoedId, WriteArgs):
    """A change's query: `dryRun`, and the path's own id where a client sends it again."""


def answer_create(store, fields, dry_run, endpoint, make=None):
    """A create's answer: a dry run's 200, or the 201 (or its replay) with Location and ETag.
    `make` writes it (default: `store.create`; an instance's: `admission.admit`)."""
    user, make = current_user(), make or store.create
    if dry_run:
        return store.seen_by(idempotency.dry_run(make, fields, user), user), 200
    doc, replay = idempotency.create(make, store.collection, fields, user)
    return store.seen_by(doc, user), {**replay, "Location": url_for(endpoint, id=doc["_id"]), "ETag": etag(doc)}


def answer_read(doc, body=None, more_headers=None):
    """A read's answer: 304 when If-None-Match names the current version, else `body` (the
    document itself unless given) with its ETag."""
    if preconditions.is_current(doc):
        return Response(status=304), {"ETag": etag(doc)}
    return (doc if body is None else body), {"ETag": etag(doc), **(more_headers or {})}


def answer_delete(delete, id):
    """A DELETE (`store.delete`, or `admission.withdraw`), If-Match honoured."""
    delete(id, current_user(), preconditions.if_match())


def answer_change(store, id, fields, dry_run):
    """A PATCH's or PUT's answer: the version written (or that a dry run would write) and its ETag."""
    user = current_user()
    doc = store.update(id, user, fields, preconditions.if_match(), dry_run=dry_run)
    return store.seen_by(doc, user), {} if dry_run else {"ETag": etag(doc)}
