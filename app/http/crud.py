"""What the profiles' and the blueprints' list, create, read, change and delete have in common:
each operation's declarations (access, body and query, responses, problems) as one decorator
(`*_endpoint`), and its answer (a dry run, Location and ETag, a 304) as one function
(`answer_*`), so that each resource's routes.py writes out its paths and says only what is its
own."""

from collections.abc import Mapping

import marshmallow as ma
from flask import Response, has_request_context, request, url_for

from app.access.auth import current_user, login_required
from app.http import idempotency, paging, preconditions
from app.http.openapi import headers, problems
from app.http.preconditions import IF_MATCH, IF_NONE_MATCH, etag
from app.model.schemas import WRITE_PARAMETERS, Schema, WriteArgs

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


def stacked(*decorators):
    """The decorators as one, in the order they would be written above a function."""

    def decorate(function):
        for decorator in reversed(decorators):
            function = decorator(function)
        return function

    return decorate


def list_endpoint(blp, query, schema, description):
    return stacked(
        login_required(role="viewer"),
        blp.arguments(query, location="query", as_kwargs=False),
        blp.response(200, paging.page_schema(schema), headers=headers("Link"), description=description),
        problems(blp, 404, 422),
    )


def create_endpoint(blp, schema, draft, noun, **examples):
    return stacked(
        login_required(role="member"),
        blp.arguments(schema(), **examples),
        blp.arguments(WriteArgs(), location="query", as_kwargs=True),
        blp.response(201, schema, headers=headers(*CREATED), description=f"The new {noun}."),
        blp.alt_response(200, schema=draft, description=DRY_RUN.format(noun)),
        blp.doc(parameters=[idempotency.HEADER, WRITE_PARAMETERS]),
        problems(blp, 400, 403, 409, 413, 415, 422),
    )


def read_endpoint(blp, schema, description, more=(), **response):
    return stacked(
        login_required(role="viewer"),
        blp.response(200, schema, headers=headers("ETag", *more), description=description, **response),
        blp.alt_response(304, description=NOT_MODIFIED, headers=headers("ETag")),
        blp.doc(parameters=[IF_NONE_MATCH]),
        problems(blp, 404),
    )


def change_endpoint(blp, schema, description, example):
    return stacked(
        login_required(role="member"),
        blp.arguments(schema, example=example),
        blp.arguments(ChangeArgs(), location="query", as_kwargs=True),
        blp.response(200, type(schema), headers=headers("ETag"), description=description),
        blp.doc(parameters=[IF_MATCH, WRITE_PARAMETERS]),
        problems(blp, 400, 403, 404, 412, 413, 415, 422),
    )


def delete_endpoint(blp, description):
    return stacked(
        login_required(role="member"),
        blp.response(204, description=description),
        blp.doc(parameters=[IF_MATCH]),
        problems(blp, 403, 404, 412),
    )


def answer_create(store, fields, dry_run, endpoint):
    """A create's answer: a dry run's 200, or the 201 (or its replay) with Location and ETag."""
    user = current_user()
    if dry_run:
        return store.seen_by(idempotency.dry_run(store, fields, user), user), 200
    doc, replay = idempotency.create(store, fields, user)
    return store.seen_by(doc, user), {**replay, "Location": url_for(endpoint, id=doc["_id"]), "ETag": etag(doc)}


def answer_read(doc, body=None, more_headers=None):
    """A read's answer: 304 when If-None-Match names the current version, else `body` (the
    document itself unless given) with its ETag."""
    if preconditions.is_current(doc):
        return Response(status=304), {"ETag": etag(doc)}
    return (doc if body is None else body), {"ETag": etag(doc), **(more_headers or {})}


def answer_delete(store, id):
    """A DELETE, If-Match honoured."""
    store.delete(id, current_user(), preconditions.if_match())


def answer_change(store, id, fields, dry_run):
    """A PATCH's or PUT's answer: the version written (or that a dry run would write) and its ETag."""
    user = current_user()
    doc = store.update(id, user, fields, preconditions.if_match(), dry_run=dry_run)
    return store.seen_by(doc, user), {} if dry_run else {"ETag": etag(doc)}
