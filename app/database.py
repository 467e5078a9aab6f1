"""The MongoDB connection: one client per process, journaled writes, indexes made at start-up."""
import contextlib
import secrets
from datetime import UTC, datetime

from flask import current_app
from pymongo import MongoClient, ReturnDocument, WriteConcern
from pymongo.errors import DuplicateKeyError

from app import embedded


def init_app(app, client=None):
    if client is None:
        uri = app.config["MONGO_URI"] or embedded.start(app.config["DATA_DIR"])
        timeout = app.config["MONGO_TIMEOUT_MS"]
        client = MongoClient(uri, serverSelectionTimeoutMS=timeout, connectTimeoutMS=timeout,
                             socketTimeoutMS=10 * timeout, retryWrites=False, tz_aware=True)
    # An acknowledged write must survive a crash: journaled, and on a majority of a replica set,
    # unless MONGO_URI itself says otherwise (w=..., journal=...).
    concern = client.write_concern if client.write_concern.document else WriteConcern("majority", j=True)
    app.extensions["mongo"] = client.get_database(app.config["MONGO_DB"], write_concern=concern)


def now():
    """MongoDB keeps milliseconds; truncating here makes a 201 body equal to later reads."""
    moment = datetime.now(UTC)
    return moment.replace(microsecond=moment.microsecond // 1000 * 1000)


def get_db():
    return current_app.extensions["mongo"]


def count_in_window(collection, key, window, amount=1):
    """Add `amount` to the counter `key` of a fixed window that opens with its first count and
    lasts `window` (a timedelta; a TTL index on expireAt removes it). Returns the new count and
    the window's end.

    Plain $inc and $set: SecantusDB runs pipeline updates slowly. No count is lost: exactly one
    caller opens a window (by resetting an expired counter or inserting a new one), and a caller
    that loses that race counts again, in the window the winner opened."""
    while True:
        moment = now()
        counted = collection.find_one_and_update({"_id": key, "expireAt": {"$gt": moment}}, {"$inc": {"count": amount}},
                                                 return_document=ReturnDocument.AFTER)
        if counted:
            return counted["count"], counted["expireAt"]
        fresh = {"count": amount, "expireAt": moment + window}
        if collection.update_one({"_id": key, "expireAt": {"$lte": moment}}, {"$set": fresh}).modified_count:
            return amount, fresh["expireAt"]
        with contextlib.suppress(DuplicateKeyError):
            collection.insert_one({"_id": key, **fresh})
            return amount, fresh["expireAt"]


def shared_secret(db):
    """A random key kept in the database, so every worker on every host signs alike."""
    db.settings.update_one({"_id": "secret"}, {"$setOnInsert": {"value": secrets.token_hex(32)}}, upsert=True)
    return db.settings.find_one({"_id": "secret"})["value"]
