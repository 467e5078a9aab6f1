"""The HTTP side shared by every resource: routes built once for a schema and a store."""
from flask import Response, request, url_for
from flask.views import MethodView

from app.auth import current_user, login_required


def etag(doc):
    return f'"{doc["rev"]}"'


def _tags(header):
    return {tag.strip().removeprefix("W/") for tag in header.split(",")}


def not_modified(doc):
    """True when If-None-Match names the current representation (weak comparison, RFC 9110)."""
    header = request.headers.get("If-None-Match")
    return header is not None and (header.strip() == "*" or etag(doc) in _tags(header))


def register(blp, schema, store, noun):
    """Add create and read-one routes for a resource to `blp`."""
    item_endpoint = f"{blp.name}.{noun.capitalize()}Item"

    class Collection(MethodView):
        @login_required(role="member")
        @blp.arguments(schema)
        @blp.response(201, schema, description=f"The new {noun}, with `Location` and `ETag`.")
        @blp.alt_response(422, description="Validation failed.")
        def post(self, fields):
            doc = store.create(fields, current_user())
            return doc, {"Location": url_for(item_endpoint, id=str(doc["_id"])), "ETag": etag(doc)}

    class Item(MethodView):
        @login_required(role="viewer")
        @blp.response(200, schema, description=f"The {noun}, with `ETag`.")
        @blp.alt_response(304, description="Not modified (If-None-Match).")
        @blp.alt_response(404, description="No such resource for this caller.")
        def get(self, id):
            doc = store.get(id, current_user())
            if not_modified(doc):
                return Response(status=304, headers={"ETag": etag(doc)})
            return doc, {"ETag": etag(doc)}

    Collection.post.__doc__ = f"Create a {noun}"
    Item.get.__doc__ = f"Read one {noun}"
    blp.route("", endpoint=f"{noun.capitalize()}Collection")(Collection)
    blp.route("/<id>", endpoint=f"{noun.capitalize()}Item")(Item)
