"""Pages over HTTP: the parameters every list takes, its signed cursor, the body of a page and
its `Link` to the next one. The cursor holds where storage's walk stopped (`pages.Position`),
signed with the service's secret so that one the service did not issue is a 422, never trusted."""

from functools import cache, wraps

import marshmallow as ma
from bson import ObjectId
from flask import current_app, request, url_for
from itsdangerous import BadSignature, URLSafeSerializer

from app.http.openapi import LIST, headers, problems
from app.model.accounts import OWNER
from app.model.fields import Text, Trimmed
from app.model.schemas import Schema
from app.storage.list_keys import MAX_Q_WORDS, words
from app.storage.pages import Position

DEFAULT_LIMIT, MAX_LIMIT = 50, 200


def signer(salt="list-cursor"):
    """Signs cursors with the service's secret; each kind of cursor has its own salt."""
    return URLSafeSerializer(current_app.config["SECRET_KEY"], salt=salt)


def sign(position):
    return signer().dumps([str(position.below), position.width_ms])


class Cursor(ma.fields.String):
    def _deserialize(self, value, attr, data, **kwargs):
        text = super()._deserialize(value, attr, data, **kwargs)
        try:
            below, width = signer().loads(text)
            return Position(ObjectId(below), max(1, int(width)))
        except (BadSignature, TypeError, ValueError):
            raise ma.ValidationError("Not a cursor issued by this service.") from None


class NumberCursor(ma.fields.String):
    """The cursor of a list numbered from 1 (a blueprint's revisions, an instance's releases): the
    number the next page goes below, signed with the list's own salt."""

    def __init__(self, salt, **kwargs):
        super().__init__(metadata={"description": "`next` of the previous page."}, **kwargs)
        self.salt = salt

    def sign(self, number):
        return signer(self.salt).dumps(number)

    def _deserialize(self, value, attr, data, **kwargs):
        try:
            number = signer(self.salt).loads(super()._deserialize(value, attr, data, **kwargs))
        except BadSignature:
            number = None
        if not isinstance(number, int) or isinstance(number, bool):
            raise ma.ValidationError("Not a cursor issued by this service.")
        return number


class PageArgs(Schema):
    """The parameters every list takes."""

    limit = ma.fields.Integer(load_default=DEFAULT_LIMIT, validate=ma.validate.Range(1, MAX_LIMIT))
    cursor = Cursor(metadata={"description": "`next` of the previous page."})


class Words(Text):
    """`q`: its words, read once here (`list_keys.words`), for the keys and the test of each
    document alike."""

    def __init__(self, **kwargs):
        super().__init__(allow_none=False, load_default=ma.missing, validate=Trimmed(1, 200), **kwargs)

    def _deserialize(self, value, attr, data, **kwargs):
        text = super()._deserialize(value, attr, data, **kwargs)
        super()._validate(text)
        found = words(text)
        if not found:
            raise ma.ValidationError("Needs a word: letters or digits.")
        if len(found) > MAX_Q_WORDS:
            raise ma.ValidationError(f"At most {MAX_Q_WORDS} words.")
        return found

    def _validate(self, value):
        """The validators check the text, in `_deserialize`: what it gives is its words."""


def Exact(most, description):  # noqa: N802 (a field, named as marshmallow's are)
    """A list filter that one field matches exactly: 1 to `most` characters, trimmed."""
    return Text(
        allow_none=False, load_default=ma.missing, validate=Trimmed(1, most), metadata={"description": description}
    )


class ListArgs(PageArgs):
    """The filters both resource lists take; each resource adds its own."""

    name = Exact(200, "Exact name.")
    q = Words(
        metadata={
            "description": "Words (runs of letters and digits, at most 10): each must start a word of the "
            "name, description or tags, compared case-insensitively (Unicode case folding)."
        },
    )
    owner = ma.fields.String(
        validate=OWNER, metadata={"description": "Only resources of this owner (exact: a username or team:NAME)."}
    )


@cache  # one class per item schema: the document names each once
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


def respond(items, next_cursor):
    """The body of a page and its RFC 8288 `Link` to the next one (a signed cursor, or None),
    keeping the request's other parameters, each repeated one (`?tag=a&tag=b`) with all its values."""
    if next_cursor is None:
        return {"items": items, "next": None}, {}
    params = {**(request.view_args or {}), **request.args.to_dict(flat=False), "cursor": next_cursor}
    return {"items": items, "next": next_cursor}, {"Link": f'<{url_for(request.endpoint, **params)}>; rel="next"'}


def paginated(blp, query, item_schema, description, signed=sign, statuses=LIST):
    """A list route's declarations (its query, a page of `item_schema` with its `Link`, the
    problems of `statuses`) and its answer: the view returns the page's items and where the walk stopped (None:
    the last page), which `signed` makes the cursor of the next."""

    def declare(view):
        @wraps(view)
        def page(*args, **kwargs):
            items, position = view(*args, **kwargs)
            return respond(items, None if position is None else signed(position))

        page = problems(blp, *statuses)(page)
        page = blp.response(200, page_schema(item_schema), headers=headers("Link"), description=description)(page)
        return blp.arguments(query, location="query", as_kwargs=False)(page)

    return declare
