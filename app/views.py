"""The HTTP side shared by every resource: its routes, built once for a schema and a store."""
import re

from flask import Response, current_app, request, url_for
from flask.views import MethodView
from flask_smorest import abort

from app import idempotency, pagination
from app.api import problems
from app.auth import current_user, login_required

_ETAG_LIST = re.compile(r'^(\*|(W/)?"[\x21\x23-\x7e]*"( *, *(W/)?"[\x21\x23-\x7e]*")*)$')  # RFC 9110


def etag(doc):
    return f'"{doc["rev"]}"'


def _tags(name):
    """The entity tags of a precondition header, None when it is absent; a malformed one is a 400."""
    header = request.headers.get(name)
    if header is None:
        return None
    if not _ETAG_LIST.fullmatch(header.strip()):
        abort(400, message=f"Malformed {name} header: expected * or a list of quoted entity tags.")
    return [tag.strip() for tag in header.split(",")]


def if_none_match():
    """A test of whether the caller's copy is current (weak comparison, RFC 9110), or None."""
    tags = _tags("If-None-Match")
    if tags is None:
        return None
    weak = {tag.removeprefix("W/") for tag in tags}
    return lambda doc: "*" in tags or etag(doc) in weak


def if_match():
    """The If-Match precondition as a test of a document, or None when none was sent (strong
    comparison: a weak tag never matches)."""
    tags = _tags("If-Match")
    if tags is None:
        return None
    return lambda doc: "*" in tags or etag(doc) in tags


def _respond(result):
    response = current_app.json.response(result["body"])
    response.status_code = result["status"]
    response.headers.extend(result["headers"])
    if result.get("replayed"):
        response.headers["Idempotent-Replayed"] = "true"
    return response


def _headers(*names):
    return {name: HEADERS[name] for name in names}


HEADERS = {
    "ETag": {"description": "The version of the resource, for If-Match and If-None-Match.",
             "schema": {"type": "string"}},
    "Location": {"description": "The path of the new resource.", "schema": {"type": "string"}},
    "Link": pagination.LINK_HEADER,
    "Idempotent-Replayed": {"description": "`true` when this is the stored response of an earlier request "
                                           "with the same Idempotency-Key.", "schema": {"type": "string"}},
}
ETAG_LIST = {"type": "string", "pattern": _ETAG_LIST.pattern}
IF_MATCH = {"name": "If-Match", "in": "header", "schema": ETAG_LIST,
            "description": "ETag of the version this change was decided on (412 if stale; `*` matches any)."}
IF_NONE_MATCH = {"name": "If-None-Match", "in": "header", "schema": ETAG_LIST,
                 "description": "ETags the caller holds; 304 when one is current."}
IDEMPOTENCY_KEY = {"name": "Idempotency-Key", "in": "header",
                   "schema": {"type": "string", "minLength": 1, "maxLength": 255,
                              "pattern": f"^{idempotency.KEY.pattern}$"},
                   "description": "A retry with the same key and body within 24 h returns the first response "
                                  "and creates nothing; the same key with another body is a 422."}


def register(blp, schema, store, query_schema, noun, example):
    """Add the contract's five operations for a resource to `blp`."""
    item_endpoint = f"{blp.name}.{noun.capitalize()}Item"
    dump = schema().dump  # one instance: building a schema costs more than dumping a document

    class Collection(MethodView):
        @login_required(role="viewer")
        @blp.arguments(query_schema(), location="query", as_kwargs=False)
        @blp.response(200, pagination.page_schema(schema), headers=_headers("Link"),
                      description=f"A page of {noun}s, newest first.")
        @problems(blp, 422)
        def get(self, args):
            return pagination.respond(*store.list(current_user(), args))

        @login_required(role="member")
        @blp.arguments(schema(), example=example)
        @blp.response(201, schema, headers=_headers("Location", "ETag", "Idempotent-Replayed"),
                      description=f"The new {noun}.")
        @blp.doc(parameters=[IDEMPOTENCY_KEY])
        @problems(blp, 400, 403, 409, 413, 415, 422)
        def post(self, fields):
            user = current_user()

            def create(id=None):
                doc = store.create(fields, user, id)
                return {"status": 201, "body": dump(doc),
                        "headers": {"Location": url_for(item_endpoint, id=str(doc["_id"])), "ETag": etag(doc)}}

            key = request.headers.get("Idempotency-Key")
            if key is None:
                return _respond(create())
            return _respond(idempotency.create_once(user["username"], blp.name, key, request.get_json(), create))

    class Item(MethodView):
        @login_required(role="viewer")
        @blp.response(200, schema, headers=_headers("ETag"), description=f"The {noun}.")
        @blp.alt_response(304, description="Not modified: the If-None-Match tag is current.",
                          headers=_headers("ETag"))
        @blp.doc(parameters=[IF_NONE_MATCH])
        @problems(blp, 404)
        def get(self, id):
            current = if_none_match()
            doc = store.get(id, current_user())
            if current and current(doc):
                return Response(status=304, headers={"ETag": etag(doc)})
            return doc, {"ETag": etag(doc)}

        @login_required(role="member")
        @blp.arguments(schema(partial=True), example={"name": example.get("name")})
        @blp.response(200, schema, headers=_headers("ETag"), description=f"The changed {noun}.")
        @blp.doc(parameters=[IF_MATCH])
        @problems(blp, 400, 403, 404, 412, 413, 415, 422)
        def patch(self, changes, id):
            doc = store.update(id, current_user(), changes, if_match())
            return doc, {"ETag": etag(doc)}

        @login_required(role="member")
        @blp.arguments(schema(), example=example)
        @blp.response(200, schema, headers=_headers("ETag"), description=f"The replaced {noun}.")
        @blp.doc(parameters=[IF_MATCH])
        @problems(blp, 400, 403, 404, 412, 413, 415, 422)
        def put(self, fields, id):
            doc = store.update(id, current_user(), fields, if_match())
            return doc, {"ETag": etag(doc)}

        @login_required(role="member")
        @blp.response(204, description=f"The {noun} is gone.")
        @blp.doc(parameters=[IF_MATCH])
        @problems(blp, 403, 404, 412)
        def delete(self, id):
            store.delete(id, current_user(), if_match())

    Collection.get.__doc__ = f"List the {noun}s the caller may read"
    Collection.post.__doc__ = f"Create a {noun}"
    Item.get.__doc__ = f"Read one {noun}"
    Item.patch.__doc__ = f"Change the fields sent of a {noun}"
    Item.put.__doc__ = f"Replace every writable field of a {noun}"
    Item.delete.__doc__ = f"Delete a {noun}"
    blp.route("", endpoint=f"{noun.capitalize()}Collection")(Collection)
    blp.route("/<id>", endpoint=f"{noun.capitalize()}Item")(Item)
