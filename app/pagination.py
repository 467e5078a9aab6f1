"""Keyset pagination, newest first: a page is the next `limit` ids below the cursor's.

A cursor is the last id of a page, signed with the service's secret, so one that the service did
not issue is refused (422) rather than trusted. The page body is `{"items": [...], "next": ...}`
with an RFC 8288 `Link` header to the next page.
"""

import marshmallow as ma
from bson import ObjectId
from flask import current_app, request, url_for
from itsdangerous import BadSignature, URLSafeSerializer
from pymongo import DESCENDING

from app.schemas import Schema

DEFAULT_LIMIT, MAX_LIMIT = 50, 200


def _signer():
    return URLSafeSerializer(current_app.config["SECRET_KEY"], salt="list-cursor")


def sign(last_id):
    """The cursor of the page after the one that ends with `last_id`."""
    return _signer().dumps(str(last_id))


class Cursor(ma.fields.String):
    def _deserialize(self, value, attr, data, **kwargs):
        text = super()._deserialize(value, attr, data, **kwargs)
        try:
            return ObjectId(_signer().loads(text))
        except (BadSignature, TypeError, ValueError):
            raise ma.ValidationError("Not a cursor issued by this service.") from None


class PageArgs(Schema):
    """The parameters every list takes."""

    limit = ma.fields.Integer(load_default=DEFAULT_LIMIT, validate=ma.validate.Range(1, MAX_LIMIT))
    cursor = Cursor(metadata={"description": "`next` of the previous page."})


def page_schema(item_schema):
    """The schema of `{"items": [...], "next": cursor}` for items of `item_schema`."""
    name = item_schema.__name__.removesuffix("Schema") + "Page"
    return type(
        name,
        (Schema,),
        {
            "__module__": __name__,
            "items": ma.fields.List(ma.fields.Nested(item_schema)),
            "next": ma.fields.String(allow_none=True, metadata={"description": "Cursor of the next page, or null."}),
        },
    )


def page(coll, query, args):
    """One page of `query`, and the cursor of the next page or None."""
    if "cursor" in args:
        query = {"$and": [query, {"_id": {"$lt": args["cursor"]}}]}
    limit = args["limit"]
    items = list(coll.find(query).sort("_id", DESCENDING).limit(limit + 1))
    more = len(items) > limit
    items = items[:limit]
    return items, (sign(items[-1]["_id"]) if more else None)


def respond(items, next_cursor):
    """The body of a page and its `Link` to the next one, keeping the other parameters."""
    if next_cursor is None:
        return {"items": items, "next": None}, {}
    params = {**request.args.to_dict(), "cursor": next_cursor}
    return {"items": items, "next": next_cursor}, {"Link": f'<{url_for(request.endpoint, **params)}>; rel="next"'}
