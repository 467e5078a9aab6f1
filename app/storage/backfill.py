"""`keys` for documents stored before they existed, built in the background without downtime.

At start-up each process asks whether any document of a store lacks `keys` (a walk of the null
entries of the `keys` index, window by window, newest first). If some do, the store is
"pending": every list page also reads those documents (`{keys: null}`, the same index, windowed
like any other branch) and checks them in full, so lists stay complete while a background thread
writes their keys. One process at a time does the writing, half of the time (a lease in
`settings`, renewed per batch, taken over when it lapses); each document is written on the
condition that it still has no keys and the same `rev`, so a concurrent change or star, which
writes keys of its own, always wins. Each process stops being pending when it finds no document
left without keys.
"""

import logging
import threading
import time
from datetime import timedelta

import pymongo
from flask import current_app
from pymongo import WriteConcern
from pymongo.errors import DuplicateKeyError, PyMongoError

from app.storage import ids, pagination
from app.storage.database import now

log = logging.getLogger(__name__)
BATCH = 500
LEASE = timedelta(seconds=60)
RETRY_SECONDS = 5  # how often a process that does not hold the lease looks again
# Keys are derived from the document: a crash that loses some leaves them to the next backfill, so
# the backfill does not wait for the journal after each document (the requests' writes still do).
DERIVED = WriteConcern(w=1, j=False)


def _state(store):
    return current_app.extensions.setdefault("backfill", {}).setdefault(
        store.collection, {"pending": False, "densest": None}
    )


def pending(store):
    return _state(store)["pending"]


def densest(store):
    """How many documents per ms the ones without keys may hold: the collection's mean density,
    read once per process (on the embedded server, a count reads the collection: 0.5 s at
    100,000, so without the usual timeout, as the floor). The documents stored before keys fill
    whole stretches of ids, so a page that steps out of a stretch already written (newest first)
    must not size its window blind."""
    state = _state(store)
    if state["densest"] is None:
        span = ids.ms_of(now()) - current_app.extensions["floors"][store.collection]
        with pymongo.timeout(600):
            count = store.coll().estimated_document_count()
        state["densest"] = max(count, 1) / max(span, 1)
    return state["densest"]


def _lacking(store):
    """Whether a document lacks keys: the first of them, newest first, found window by window
    (a plain `find_one` reads every document without keys on the embedded server)."""
    return bool(_without_keys(store, {"limit": 1})[0])


def _without_keys(store, args):
    return pagination.page(store.coll(), [{"keys": None}], lambda doc: True, args, densest=densest(store))


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
    written, coll, args = 0, store.coll().with_options(write_concern=DERIVED), {"limit": BATCH}
    while True:
        started = time.monotonic()
        batch, below = _without_keys(store, args)
        if not batch:
            return written
        written += sum(coll.update_one({"_id": doc["_id"], "rev": doc.get("rev"), "keys": None},
                                       {"$set": {"keys": store.keys(doc)}}).modified_count
                       for doc in batch)  # fmt: skip
        if below is None:  # the walk is done; what lacks keys meanwhile (above it) is the next one's
            return written
        args = {"limit": BATCH, "cursor": pagination.unsign(below)}
        store.coll().database.settings.update_one({"_id": _lease(store)}, {"$set": {"until": now() + LEASE}})
        log.info("backfill of %s keys: %d written", store.collection, written)
        time.sleep(time.monotonic() - started)  # half the time: the requests served meanwhile get the rest
