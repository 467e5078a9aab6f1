"""`keys` for documents stored before they existed, written in the background without downtime.

While a store has documents without keys ("unkeyed"), its lists also read them (`{keys: null}`)
and check them in full, so lists stay complete. One process at a time writes their keys, half of
the time, under a lease; each write is conditional on the document's `rev` and absent keys, so a
concurrent change or star always wins (docs/design.md, "Lists").
"""

import logging
import threading
import time
from datetime import timedelta

import pymongo
from flask import current_app
from pymongo import WriteConcern
from pymongo.errors import DuplicateKeyError, PyMongoError

from app.storage import ids, list_keys, pages
from app.storage.database import now

log = logging.getLogger(__name__)
BATCH = 500
LEASE = timedelta(seconds=60)
RETRY_SECONDS = 5  # how often a process that does not hold the lease looks again
# Keys are derived from the document: a crash that loses some leaves them to the next backfill, so
# the backfill does not wait for the journal after each document (the requests' writes still do).
DERIVED = WriteConcern(w=1, j=False)


UNKEYED = list_keys.ListQuery(({list_keys.FIELD: None},), lambda doc: True, plain=False)


def _state(store):
    return current_app.extensions.setdefault("backfill", {}).setdefault(
        store.collection, {"pending": False, "per_ms": None}
    )


def pending(store):
    return _state(store)["pending"]


def unkeyed_per_ms(store):
    """While documents of `store` may lack keys, how dense they may be (documents per ms), else
    None."""
    return _per_ms(store) if pending(store) else None


def _per_ms(store):
    """The collection's mean density. Documents without keys fill whole stretches of ids, so a
    window must not step into them blind; counted once per process (on the embedded server a
    count reads the collection, 0.5 s at 100,000: without the usual timeout, like the floor)."""
    state = _state(store)
    if state["per_ms"] is None:
        span = ids.ms_of(now()) - current_app.extensions["lists"][store.collection]["floor"]
        with pymongo.timeout(600):
            count = store.coll().estimated_document_count()
        state["per_ms"] = max(count, 1) / max(span, 1)
    return state["per_ms"]


def _lacking(store):
    """Whether a document lacks keys (a plain `find_one` reads all of them on the embedded server)."""
    return bool(_without_keys(store, 1)[0])


def _without_keys(store, limit, position=None):
    return pages.read(store.coll(), UNKEYED, limit, position, unkeyed_per_ms=_per_ms(store))


def start(app, store):
    """Mark `store` pending in `app` and start its backfill thread when documents lack keys."""
    with app.app_context():
        state = _state(store)
        state["pending"] = _lacking(store)
    if state["pending"]:
        state["thread"] = threading.Thread(
            target=_loop, args=(app, store), name=f"backfill-{store.collection}", daemon=True
        )
        state["thread"].start()


def _loop(app, store):
    """Until no document lacks keys; a database that fails a step (a timeout under load) only
    delays the next."""
    with app.app_context():
        while True:
            try:
                if not _lacking(store):
                    break
                if not (_take_lease(store) and run(store)):
                    time.sleep(RETRY_SECONDS)
            except PyMongoError:
                log.warning("backfill of %s keys: the database failed a step; trying again", store.collection)
                time.sleep(RETRY_SECONDS)
        _state(store)["pending"] = False


def _lease(store):
    return f"backfill:{store.collection}"


def _take_lease(store):
    """Whether this process now holds the store's backfill lease (for LEASE from now)."""
    moment = now()
    try:
        taken = store.coll().database.settings.update_one(
            {"_id": _lease(store), "until": {"$lt": moment}},
            {"$set": {"until": moment + LEASE}},
            upsert=True,
        )
    except DuplicateKeyError:  # held by another process
        return False
    return bool(taken.modified_count or taken.upserted_id)


def run(store):
    """Write the keys of every document of `store` that lacks them, in one walk newest first,
    BATCH at a time; the number written."""
    written, coll, position = 0, store.coll().with_options(write_concern=DERIVED), None
    while True:
        started = time.monotonic()
        batch, position = _without_keys(store, BATCH, position)
        if not batch:
            return written
        written += sum(coll.update_one({"_id": doc["_id"], "rev": doc.get("rev"), list_keys.FIELD: None},
                                       {"$set": {list_keys.FIELD: store.keys(doc)}}).modified_count
                       for doc in batch)  # fmt: skip
        if position is None:  # the walk is done; what lacks keys meanwhile (above it) is the next one's
            return written
        store.coll().database.settings.update_one({"_id": _lease(store)}, {"$set": {"until": now() + LEASE}})
        log.info("backfill of %s keys: %d written", store.collection, written)
        time.sleep(time.monotonic() - started)  # half the time: the requests served meanwhile get the rest
