"""What the resources' create, read, change and delete declare and answer alike: a decorator per
kind of operation (`creates`, `reads`, `changes`, `deletes`: body and query, responses and
problems, as flask-smorest's own decorators write them), and the answers (`answer_*`: a dry run,
Location and ETag, a 304). A route writes out its path, its access and what it calls; a list's
declarations are `paging.paginated`."""

from collections.abc import Mapping

import marshmallow as ma
from flask import Response, has_request_context, request, url_for
from flask.views import MethodView

from app.access.auth import current_user, login_required
from app.http import idempotency, preconditions
from app.http.openapi import CHANGE, CREATE, DELETE, READ, headers, problems
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


def _stacked(view, *decorators):
    """`view` under `decorators`, the first outermost, as a stack of them reads."""
    for decorator in reversed(decorators):
        view = decorator(view)
    return view


def creates(blp, schema, draft_schema, noun, **example):
    """A POST that creates a `noun`: the body, `dryRun`, the 201 (or the dry run's 200) and
    `Idempotency-Key`."""
    return lambda view: _stacked(
        view,
        blp.arguments(schema(), **example),
        blp.arguments(WriteArgs(), location="query", as_kwargs=True),
        blp.response(201, schema, headers=headers(*CREATED), description=f"The new {noun}."),
        blp.alt_response(200, schema=draft_schema, description=DRY_RUN.format(noun)),
        blp.doc(parameters=[idempotency.HEADER, WRITE_PARAMETERS]),
        problems(blp, *CREATE),
    )


def _conditional_get(blp, response):
    """A GET answering `response` (a `blp.response`), with its ETag's 304 of If-None-Match."""
    return lambda view: _stacked(
        view,
        response,
        blp.alt_response(304, description=NOT_MODIFIED, headers=headers("ETag")),
        blp.doc(parameters=[IF_NONE_MATCH]),
        problems(blp, *READ),
    )


def reads(blp, schema, noun):
    """A GET of one `noun`: its ETag, and the 304 of If-None-Match."""
    return _conditional_get(blp, blp.response(200, schema, headers=headers("ETag"), description=f"The {noun}."))


def changes(blp, schema, noun, partial=False, **example):
    """A PATCH (`partial`: the fields sent) or PUT (all of them) of a `noun`, If-Match honoured."""
    done = "changed" if partial else "replaced"
    return lambda view: _stacked(
        view,
        blp.arguments(schema(partial=True) if partial else schema(), **example),
        blp.arguments(ChangeArgs(), location="query", as_kwargs=True),
        blp.response(200, schema, headers=headers("ETag"), description=f"The {done} {noun}."),
        blp.doc(parameters=[IF_MATCH, WRITE_PARAMETERS]),
        problems(blp, *CHANGE),
    )


def downloads(blp, description, header):
    """A GET of a YAML definition, as bytes: its ETag and `header`, and the 304 of If-None-Match."""
    yaml = blp.response(
        200, None, headers=headers("ETag", header), description=description, content_type="application/yaml"
    )
    return _conditional_get(blp, yaml)


def deletes(blp, description, headers=None):
    """A DELETE, If-Match honoured (`headers`: those its 204 may carry, documented)."""
    return lambda view: _stacked(
        view,
        blp.response(204, description=description, headers=headers),
        blp.doc(parameters=[IF_MATCH]),
        problems(blp, *DELETE),
    )


def computes(blp, args_schema, schema, description):
    """A GET answered from its query, never stored: the query, the 200, and a 404 for the path's
    resource or a 422 for the query."""
    return lambda view: _stacked(
        view,
        blp.arguments(args_schema(), location="query", as_kwargs=False),
        blp.response(200, schema, description=description),
        problems(blp, 404, 422),
    )


def _summary(text):
    """Gives a view made for several resources the summary its docstring would."""

    def named(view):
        view.__doc__ = text
        return view

    return named


def created(blp, store, schema, draft_schema, noun, summary, role="member", make=None, **example):
    """The POST of a collection that creates a `noun` as `role` (`make` writes it: default
    `store.create`); its Location is the `noun`'s item view (`SourceItem` for "source")."""
    item = f"{blp.name}.{noun.capitalize()}Item"

    class Created(MethodView):
        @login_required(role=role)
        @creates(blp, schema, draft_schema, noun, **example)
        @_summary(summary)
        def post(self, fields, dryRun):
            return answer_create(store, fields, dryRun, item, make)

    return Created


def read(blp, store, schema, noun):
    """The GET of one `noun` that its `store` reads, as the caller sees it."""

    class Read(MethodView):
        @login_required(role="viewer")
        @reads(blp, schema, noun)
        @_summary(f"Read one {noun}")
        def get(self, id):
            return answer_seen(store, id)

    return Read


def edited(blp, store, schema, noun, example, partial_example):
    """The GET, PATCH, PUT and DELETE of a `noun` that its `store` reads, changes and deletes as
    sent: profiles, blueprints and sources are read and changed alike."""

    class Edited(read(blp, store, schema, noun)):
        @login_required(role="member")
        @changes(blp, schema, noun, partial=True, example=partial_example)
        @_summary(f"Change the fields sent of a {noun}")
        def patch(self, fields, id, dryRun):
            return answer_change(store, id, fields, dryRun)

        @login_required(role="member")
        @changes(blp, schema, noun, example=example)
        @_summary(f"Replace every writable field of a {noun}")
        def put(self, fields, id, dryRun):
            return answer_change(store, id, fields, dryRun)

        @login_required(role="member")
        @deletes(blp, f"The {noun} is gone.")
        @_summary(f"Delete a {noun}")
        def delete(self, id):
            answer_delete(store.delete, id)

    return Edited


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


def answer_seen(store, key):
    """A read's answer of the document `key` names (an id; a team's name) as the caller sees it
    (`store.seen_by`: its `can`, and what else depends on who asks)."""
    user = current_user()
    doc = store.readable(key, user)
    return answer_read(doc, store.seen_by(doc, user))


def answer_delete(delete, id):
    """A DELETE (`store.delete`, or `admission.withdraw`), If-Match honoured."""
    delete(id, current_user(), preconditions.if_match())


def answer_change(store, id, fields, dry_run):
    """A PATCH's or PUT's answer: the version written (or that a dry run would write) and its ETag."""
    user = current_user()
    doc = store.update(id, user, fields, preconditions.if_match(), dry_run=dry_run)
    return store.seen_by(doc, user), {} if dry_run else {"ETag": etag(doc)}
