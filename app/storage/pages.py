"""A page of a list, newest first, read in windows of ids at a cost bounded by construction: every
query is one equality (a branch of `list_keys`) with `_id` bounded on both ends, a shape both
MongoDB and the embedded server serve from an index. On the embedded server the windows widen so
that a page sends at most WINDOWS_BOUND of them (docs/storage.md, "A page's walk").

Each listed collection has one `Pager` per app, made at start-up (`prepare`): what it learns
(the floor, the density of the last plain first page, the ids this process made) stays with it."""

import math
from collections import deque
from dataclasses import dataclass

import pymongo
from bson import ObjectId
from flask import current_app
from pymongo import DESCENDING

from app import state
from app.storage import ids, list_keys
from app.storage.cache import TtlCache
from app.storage.database import now

FIRST_WINDOW_MS = 1_000  # a first page's window when this process has no density to go by (else twice
# the span that held the last plain first page's items: one window, where another list is as dense)
LEEWAY_MS = 60_000  # page 1 also shows ids up to a minute ahead of this host's clock
FLOOR_MARGIN_MS = 24 * 3600 * 1000  # below the oldest id, for other hosts' clocks
GROWTH = 8  # the most a window is wider than the span walked before it
WINDOWS_BOUND = 64  # 1 + log2 of the widest span in ms (ids' 32-bit seconds), plus the first window
RECENT_CREATES = 1_024  # the ids a process remembers making, for the first window after a burst
DENSITY_SECONDS = 3600  # how long the last plain first page's density is trusted


@dataclass(frozen=True)
class Position:
    """Where the next page starts: below the id `below`, with the window `width_ms` that served
    the last one."""

    below: ObjectId
    width_ms: int


def prepare(coll, by_id_alone=False):
    """Once per process: the Pager of `coll` (lists `by_id_alone`, with no equality, need the `_id`
    index MongoDB has on every collection, made here on the embedded server)."""
    pager = Pager(coll)
    if pager.windowed and by_id_alone:
        coll.create_index([("_id", DESCENDING)], name="newest")
    state.of().pagers[coll.name] = pager


def pager(coll):
    """This app's Pager of `coll`, made by `prepare` at start-up."""
    return state.of().pagers[coll.name]


def lower_floor(coll, ms):
    """Let lists of `coll` reach down to `ms` (an import of documents older than the floor calls
    this; processes started after it read the new floor)."""
    coll.database.settings.update_one({"_id": f"floor:{coll.name}"}, {"$min": {"value": ms}}, upsert=True)


def next_width(walked, needed, matched, examined, missed, window_docs):
    """The next window's width (ms), once `walked` ms hold `matched` of the documents accepted and
    `examined` in all, `needed` more are wanted, and the last window matched nothing if `missed`.

    After a miss, GROWTH times the span walked (what a window found above says nothing of the
    years below it); else enough for what is needed at the density matched so far, between the
    span walked (so that the span at least doubles) and GROWTH times it (so that a window never
    lands blind on far more than it needs); never, once more than `window_docs` were examined,
    more than that many at the density examined (a filter most documents fail)."""
    wanted = GROWTH * walked if missed else min(max(needed * walked / max(matched, 1), walked), GROWTH * walked)
    if examined > window_docs:
        wanted = min(wanted, window_docs * walked / examined)
    return max(1, min(int(wanted), 2**62))


class Pager:
    """The pages of one collection: reads them, and keeps what sizes their windows."""

    def __init__(self, coll):
        """Whether `coll` is on the embedded server, which needs windows, and its floor, below
        which no window goes: the oldest id, kept in `settings` (ids only grow). Finding it the
        first time is a walk of the whole collection on the embedded server (seconds at 100,000
        documents, so without the usual timeout), once per deployment."""
        self.coll = coll
        self.windowed = "secantusVersion" in coll.database.client.server_info()
        self.window_docs = current_app.config["LIST_WINDOW_DOCS"]
        settings, key = coll.database.settings, f"floor:{coll.name}"
        stored = settings.find_one({"_id": key})
        if stored is None:
            with pymongo.timeout(600):
                oldest = next(coll.find({}, {"_id": 1}).sort("_id", 1).limit(1), None)
            lower_floor(coll, ids.ms_of_id(oldest["_id"]) if oldest else ids.ms_of(now()))
            stored = settings.find_one({"_id": key})
        self.floor_ms = stored["value"] - FLOOR_MARGIN_MS
        self.ms_per_item = TtlCache(size=1)  # of the last plain first page: where a first page starts
        self.recent_creates = deque(maxlen=RECENT_CREATES)  # ms of the ids this process made, in order

    def created(self, oid):
        """Note that this process made `oid`: a first page narrows its first window to the burst
        of creates it knows of at the top, which the density of the last plain page does not
        show (`first_windows`)."""
        self.recent_creates.append(ids.ms_of_id(oid))

    def first_windows(self, start, limit):
        """(width, reach): a first page's window (ms below `start`), and how far below `start` its
        second window reaches at least. Twice the span that held the last plain first page's
        items, where the documents are as dense; but after a burst of creates by this process,
        the first window spans exactly its `limit` + 1 newest of them (a window reads every
        document in it, and a burst is as dense for any list that matches it: an import, then a
        search), when they lie within GROWTH times that span (no wider than one step after a miss
        would reach, and never a window above a slow burst that misses it and then grows blind
        onto all of it); the second window goes on as if the first had not moved."""
        rate, made = self.ms_per_item.get("plain"), self.recent_creates
        usual = math.ceil(2 * rate * (limit + 1)) if rate else FIRST_WINDOW_MS
        if len(made) > limit and made[-1 - limit] > start - GROWTH * usual:
            return max(start - made[-1 - limit], 1), usual
        return usual, usual

    def read(self, query, limit, position=None, most_examined=None):
        """(items, Position of the next page or None): up to `limit` documents that a branch of
        `query` finds and it accepts, newest first, below `position`. With `most_examined`, a
        page ends after examining that many, maybe with fewer items."""
        if position is not None:
            below = position.below
            return self._walk(query, limit, ids.ms_of_id(below), below, (position.width_ms, 0), most_examined)
        start = ids.ms_of(now())
        return self._walk(
            query,
            limit,
            start,
            ids.boundary(start + LEEWAY_MS),
            self.first_windows(start, limit),
            most_examined,
            learn=query.plain,
        )

    def _walk(self, query, limit, start, hi, widths, most_examined, learn=False):
        """(items, Position of the next page or None): windows below `hi` (`start` ms), the first
        `widths[0]` wide and the second reaching `widths[1]` below `start` at least, until more
        than `limit` are found, `most_examined` examined, or the floor is reached. A full page
        teaches the density of the documents when `learn` (a plain first page)."""
        width, reach = widths
        if not self.windowed:
            width = start - self.floor_ms
        found, top, examined, cut = [], start, 0, None
        for _ in range(WINDOWS_BOUND):
            lo_ms = max(top - width, self.floor_ms)
            needed = limit + 1 - len(found)
            # A window cut by its cap stays in the same millisecond when the documents are denser than
            # a millisecond (a burst), so its span cannot double: the number it examines does instead.
            doubled = examined if cut is not None else 0
            cap = min(self.window_docs, max(needed, math.ceil(needed * examined / max(len(found), 1)), doubled))
            if most_examined is not None:
                cap = min(cap, most_examined - examined)
            docs, cut = self._window(query, hi, lo_ms, cap)
            if query.with_parts is not None and docs:
                docs = query.with_parts(docs)
            matches = [doc for doc in docs if query.accepts(doc)]
            found, examined = found + matches, examined + len(docs)
            if len(found) > limit:
                last = found[limit - 1]["_id"]
                if learn:
                    self.ms_per_item.put("plain", max(start - ids.ms_of_id(last), 1) / limit, ttl=DENSITY_SECONDS)
                return found[:limit], Position(last, width)
            hi = cut or ids.boundary(lo_ms)
            top = ids.ms_of_id(hi) if cut else lo_ms
            if cut is None and lo_ms <= self.floor_ms:
                return found, None
            if most_examined is not None and examined >= most_examined:
                return found, Position(hi, width)
            walked = max(start - top, 1)
            width = next_width(walked, limit + 1 - len(found), len(found), examined, not matches, self.window_docs)
            width = max(width, reach - walked)
        return found, Position(hi, width)

    def _window(self, query, hi, lo_ms, cap):
        """(documents newest first, the id the window was cut at or None): what the branches of
        `query` find with ids in [`lo_ms`, `hi`), at most `cap` each; a branch that reaches its cap
        may have more below its last, so the window ends there for every branch."""
        window, cut, fields = {}, None, None if query.with_keys else {list_keys.FIELD: False}
        for branch in query.branches:
            docs = list(
                self.coll.find({**branch, "_id": {"$lt": hi, "$gte": ids.boundary(lo_ms)}}, fields)
                .sort("_id", DESCENDING)
                .limit(cap)
            )
            window.update((doc["_id"], doc) for doc in docs)
            if len(docs) == cap:
                cut = max(cut, docs[-1]["_id"]) if cut else docs[-1]["_id"]
        return [window[oid] for oid in sorted(window, reverse=True) if cut is None or oid >= cut], cut
