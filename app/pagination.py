"""Keyset pagination, newest first: a page is the next `limit` ids below the cursor's.

A cursor is the last id of a page, signed with the service's secret, so one that the service did
not issue is refused (422) rather than trusted.
"""
import marshmallow as ma
from bson import ObjectId
from flask import current_app, request, url_for
from itsdangerous import BadSignature, URLSafeSerializer
from pymongo import DESCENDING

from app.fields import Schema, Text
from app.users.schemas import Username

DEFAULT_LIMIT, MAX_LIMIT = 50, 200


def _signer():
    return URLSafeSerializer(current_app.config["SECRET_KEY"], salt="list-cursor")


class Cursor(ma.fields.String):
    def _deserialize(self, value, attr, data, **kwargs):
        text = super()._deserialize(value, attr, data, **kwargs)
        try:
            return ObjectId(_signer().loads(text))
        except (BadSignature, TypeError, ValueError):
            raise ma.ValidationError("Not a cursor issued by this service.") from None


class QueryBoolean(ma.fields.Boolean):
    """"true" or "false", nothing else, as a JSON body would be."""

    def _deserialize(self, value, attr, data, **kwargs):
        if value in ("true", "false"):
            return value == "true"
        raise self.make_error("invalid")


class PageArgs(Schema):
    """The parameters every list takes."""

    limit = ma.fields.Integer(load_default=DEFAULT_LIMIT, validate=ma.validate.Range(1, MAX_LIMIT))
    cursor = Cursor(metadata={"description": "`next` of the previous page."})


class ListArgs(PageArgs):
    """The filters of both resources' lists; each adds its own."""

    name = Text(allow_none=False, load_default=ma.missing, validate=ma.validate.Length(1, 200),
                metadata={"description": "Exact name."})
    q = Text(allow_none=False, load_default=ma.missing, validate=ma.validate.Length(1, 200),
             metadata={"description": "Case-insensitive substring of name or description, taken literally."})
    owner = Username(metadata={"description": "Only resources of this owner."})


def page_schema(item_schema):
    """The schema of `{"items": [...], "next": cursor}` for items of `item_schema`."""
    name = item_schema.__name__.removesuffix("Schema") + "Page"
    return type(name, (Schema,), {
        "items": ma.fields.List(ma.fields.Nested(item_schema)),
        "next": ma.fields.String(allow_none=True, metadata={"description": "Cursor of the next page, or null."}),
    })


def page(coll, query, args):
    """One page of `query`, and the cursor of the next page or None."""
    if "cursor" in args:
        query = {"$and": [query, {"_id": {"$lt": args["cursor"]}}]}
    limit = args["limit"]
    items = list(coll.find(query).sort("_id", DESCENDING).limit(limit + 1))
    more = len(items) > limit
    items = items[:limit]
    return items, (_signer().dumps(str(items[-1]["_id"])) if more else None)


LINK_HEADER = {"description": 'The next page, as `<...>; rel="next"`, when there is one.',
               "schema": {"type": "string"}}


def respond(items, next_cursor):
    """The body of a page and its RFC 8288 `Link` to the next one, keeping the other parameters."""
    if next_cursor is None:
        return {"items": items, "next": None}, {}
    params = {**request.args.to_dict(), "cursor": next_cursor}
    return {"items": items, "next": next_cursor}, {"Link": f'<{url_for(request.endpoint, **params)}>; rel="next"'}
