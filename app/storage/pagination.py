"""Keyset pagination, newest first, at a cost that does not grow with the collection.

A page is read in windows of ids (of creation time, since ids order by it: `ids`), newest
first: every query is `{<one equality>, _id: {$lt: hi, $gte: lo}}`, a shape that both MongoDB and
the embedded server serve from an `(equality, _id)` index, reading only the window's documents
(the embedded server reads every document of an unbounded range before applying a limit:
docs/design.md). A page is read from "branches", one equality each (one per scope of
the caller: `list_filters`), queried window by window and merged by id; `keep` then checks each
document against every filter. A window that holds fewer matches than
the page still needs grows (by the density it found, up to 4x; 8x when it found none), though
never to more than WINDOW_DOCS documents at the last window's density, until the page is full or
the windows pass the collection's oldest id. Where no window has found anything yet, a caller
that knows how dense a branch may be (`densest`: the documents stored before `keys`, which fill
whole stretches of ids) bounds the windows by that, so that the step out of an empty stretch does
not land on tens of thousands of documents at once. A first page starts with the span
that served the same list's last first page in this process (for an hour), so a list read again
costs one window, or two.

A cursor is the last id of a page with the window width that served it, signed with the service's
secret, so one that the service did not issue is refused (422) rather than trusted.
"""

from functools import cache

import marshmallow as ma
import pymongo
from bson import ObjectId
from flask import current_app, request, url_for
from itsdangerous import BadSignature, URLSafeSerializer
from pymongo import DESCENDING

from app.model.schemas import Schema
from app.storage import ids
from app.storage.cache import TtlCache
from app.storage.database import now

DEFAULT_LIMIT, MAX_LIMIT = 50, 200
FIRST_WINDOW_MS = 1_000
WINDOW_DOCS = 2_000  # the most documents a window is sized to read (by the last one's density)
FIRST_WIDTHS = TtlCache(size=4096)  # a list's parameters -> the span its last first page read
LEEWAY_MS = 60_000  # page 1 also shows ids up to a minute ahead of this host's clock
FLOOR_MARGIN_MS = 24 * 3600 * 1000  # below the oldest id, for other hosts' clocks


def signer(salt="list-cursor"):
    """Signs cursors with the service's secret; each kind of cursor has its own salt."""
    return URLSafeSerializer(current_app.config["SECRET_KEY"], salt=salt)


def sign(below, width_ms=FIRST_WINDOW_MS):
    """The cursor of the page that continues below the id `below`."""
    return signer().dumps([str(below), width_ms])


def unsign(text):
    """(the id a page continues below, its window width) of a cursor this service signed."""
    below, width = signer().loads(text)
    return ObjectId(below), max(1, int(width))


class Cursor(ma.fields.String):
    def _deserialize(self, value, attr, data, **kwargs):
        text = super()._deserialize(value, attr, data, **kwargs)
        try:
            return unsign(text)
        except (BadSignature, TypeError, ValueError):
            raise ma.ValidationError("Not a cursor issued by this service.") from None


class PageArgs(Schema):
    """The parameters every list takes."""

    limit = ma.fields.Integer(load_default=DEFAULT_LIMIT, validate=ma.validate.Range(1, MAX_LIMIT))
    cursor = Cursor(metadata={"description": "`next` of the previous page."})


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


def prepare(coll, newest_index=True):
    """Once per process: the `_id` index the embedded server needs to serve a window without an
    equality (MongoDB has one on every collection; lists read through `keys` need none), and the
    collection's floor, below which no window goes: the oldest id, kept in `settings` (ids only
    grow). Finding it the first time is a walk of the whole collection on the embedded server
    (seconds at 100,000 documents, so without the usual timeout), done once per deployment; a
    single index entry on MongoDB."""
    if newest_index and "secantusVersion" in coll.database.client.server_info():
        coll.create_index([("_id", DESCENDING)], name="newest")
    settings, key = coll.database.settings, f"floor:{coll.name}"
    stored = settings.find_one({"_id": key})
    if stored is None:
        with pymongo.timeout(600):
            oldest = next(coll.find({}, {"_id": 1}).sort("_id", 1).limit(1), None)
        lower_floor(coll, ids.ms_of_id(oldest["_id"]) if oldest else ids.ms_of(now()))
        stored = settings.find_one({"_id": key})
    current_app.extensions.setdefault("floors", {})[coll.name] = stored["value"] - FLOOR_MARGIN_MS


def lower_floor(coll, ms):
    """Let lists of `coll` reach down to `ms` (an import of documents older than the floor calls
    this; processes started after it read the new floor)."""
    coll.database.settings.update_one({"_id": f"floor:{coll.name}"}, {"$min": {"value": ms}}, upsert=True)


def page(coll, branches, keep, args, most_examined=None, densest=None):
    """One page of the documents of `coll` that match one of `branches` (flat equality filters)
    and `keep` (a predicate), and the cursor of the next page or None. With `most_examined`, a
    page stops after reading that many documents, and may then hold fewer than `limit` items
    while its cursor goes on; with `densest` (documents per ms), no window is sized to read more
    than WINDOW_DOCS at that density before one has found what the branches hold."""
    limit = args["limit"]
    floor = current_app.extensions["floors"][coll.name]
    remembered = (coll.name, repr(branches), repr(sorted((k, v) for k, v in args.items() if k != "cursor")))
    if "cursor" in args:
        hi, width = args["cursor"]
        start = ids.ms_of_id(hi)
    else:
        start = ids.ms_of(now())
        hi, width = ids.boundary(start + LEEWAY_MS), FIRST_WIDTHS.get(remembered) or FIRST_WINDOW_MS
    top, found, examined, per_ms = start, [], 0, densest
    if densest:
        width = max(1, min(width, int(WINDOW_DOCS / densest)))
    while True:
        lo_ms = max(top - width, floor)
        lo = ids.boundary(lo_ms)
        window = {}
        for branch in branches:
            for doc in coll.find({**branch, "_id": {"$lt": hi, "$gte": lo}}, {"keys": False}).sort("_id", DESCENDING):
                window[doc["_id"]] = doc
        examined += len(window)
        matches = [doc for _, doc in sorted(window.items(), reverse=True) if keep(doc)]
        found += matches
        full = len(found) > limit
        if full or lo_ms <= floor:
            if "cursor" not in args:
                FIRST_WIDTHS.put(remembered, max(start - lo_ms, 1), ttl=3600)
            return (found[:limit], sign(found[limit - 1]["_id"], width)) if full else (found, None)
        if most_examined is not None and examined >= most_examined:
            return found, sign(lo, width)
        needed = limit + 1 - len(found)
        width = min(4 * width, max(width, width * needed // len(matches))) if matches else 8 * width
        per_ms = len(window) / max(top - lo_ms, 1) if window else per_ms  # what the index finds
        if per_ms:  # no window reads more than WINDOW_DOCS, nor past most_examined, at that density
            room = min(WINDOW_DOCS, most_examined - examined) if most_examined else WINDOW_DOCS
            width = max(1, min(width, int(room / per_ms)))
        hi, top = lo, lo_ms


def respond(items, next_cursor):
    """The body of a page and its RFC 8288 `Link` to the next one, keeping the other parameters."""
    if next_cursor is None:
        return {"items": items, "next": None}, {}
    params = {**(request.view_args or {}), **request.args.to_dict(), "cursor": next_cursor}
    return {"items": items, "next": next_cursor}, {"Link": f'<{url_for(request.endpoint, **params)}>; rel="next"'}
