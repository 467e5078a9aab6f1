"""The MongoDB connection: one client per process, journaled writes; the shared signing secret."""

import logging
import secrets
import time
from datetime import UTC, datetime

from pymongo import MongoClient, WriteConcern
from pymongo.errors import ConnectionFailure

from app import state
from app.storage import embedded

log = logging.getLogger(__name__)

# For a write that a crash may lose because the service makes it good again (a ledger entry's
# conclusion, which `Profiles.settled` redoes from what the instance says): acknowledged without
# waiting for the journal's sync.
REDONE_IF_LOST = WriteConcern(w=1, j=False)


def unsynced(coll):
    """`coll` writing with the deployment's write concern but without waiting for the journal's
    sync: for a write that a journaled write after it in the same request makes durable. The
    journal, and a replica set's oplog, is ordered: the sync or majority that acknowledges the
    later write covers the earlier one, and a crash before it loses the earlier write only where
    the later one was never acknowledged."""
    return coll.with_options(write_concern=WriteConcern(**{**coll.write_concern.document, "j": False}))


def took_place(happened, seconds):
    """Whether a write the database never answered took place (the connection broke after it was
    sent: it may have been done or not): `happened()` asked until the database answers it, for
    `seconds` at most; None when it never did. The question is a read of what the write decides
    (the document it inserts, deletes or moves on)."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            return happened()
        except ConnectionFailure:
            if time.monotonic() >= deadline:
                return None
            time.sleep(0.2)


def afterwards(write, *args):
    """`write(*args)`, a write after a request's decisive one whose loss a lease makes good (a
    reservation settled, a hold let go): a database gone away is logged, and never turns the
    request's answer into a failure."""
    try:
        write(*args)
    except ConnectionFailure:
        log.warning("database away: %s left to its lease", write.__qualname__)


def init_app(app, client=None):
    if client is None:
        uri = app.config["MONGO_URI"] or embedded.start(app.config["DATA_DIR"])
        timeout = app.config["MONGO_TIMEOUT_MS"]
        client = MongoClient(
            uri,
            serverSelectionTimeoutMS=timeout,
            connectTimeoutMS=timeout,
            socketTimeoutMS=10 * timeout,
            retryWrites=False,
            tz_aware=True,
        )
    # An acknowledged write must survive a crash: journaled, and on a majority of a replica set,
    # unless MONGO_URI itself says otherwise (w=..., journal=...).
    concern = client.write_concern if client.write_concern.document else WriteConcern("majority", j=True)
    state.of(app).database = client.get_database(app.config["MONGO_DB"], write_concern=concern)


def now():
    """MongoDB keeps milliseconds; truncating here makes a 201 body equal to later reads."""
    moment = datetime.now(UTC)
    return moment.replace(microsecond=moment.microsecond // 1000 * 1000)


def get_db():
    return state.of().database


def collection(name):
    """The collection `name`, made once per process: pymongo makes a new Collection (about 7 µs)
    at every `db[name]`, and a resource's store asks for its own on every request."""
    made = state.of().collections
    if name not in made:
        made[name] = get_db()[name]
    return made[name]


def setting(db, name):
    """The value of setting `name` in `db` (None: never set). Settings are the deployment's own
    values, one document each in `settings`."""
    return (db.settings.find_one({"_id": name}) or {}).get("value")


def raise_setting(db, name, value):
    """Setting `name` becomes `value`, unless it holds more already."""
    db.settings.update_one({"_id": name}, {"$max": {"value": value}}, upsert=True)


def shared_secret(db):
    """A random key kept in the database, so every worker on every host signs alike."""
    db.settings.update_one({"_id": "secret"}, {"$setOnInsert": {"value": secrets.token_hex(32)}}, upsert=True)
    return db.settings.find_one({"_id": "secret"})["value"]
