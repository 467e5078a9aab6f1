"""Fixed-window counters in MongoDB, shared by every worker and host: the failed-login throttle
(`login_throttle`) and the request quota (`request_quota`) both count with them."""

import contextlib

from pymongo.errors import DuplicateKeyError

from app.storage.database import now


def create_ttl_index(collection):
    """A counter is removed once its window has ended."""
    collection.create_index("expireAt", name="window_end", expireAfterSeconds=0)


def count_in_window(collection, key, window, amount=1):
    """Add `amount` to the counter `key` of a fixed window that opens with its first count and
    lasts `window` (a timedelta). Returns the new count and the window's end.

    Plain $inc and $set (SecantusDB runs pipeline updates slowly), and no findAndModify (which it
    answers by reading the whole collection): the count read back after an increment may include
    later increments of others, never fewer than ours. No count is lost: exactly one caller opens
    a window (by resetting an expired counter or inserting a new one), and a caller that loses
    that race counts again, in the window the winner opened."""
    while True:
        moment = now()
        if collection.update_one({"_id": key, "expireAt": {"$gt": moment}}, {"$inc": {"count": amount}}).matched_count:
            counted = collection.find_one({"_id": key})
            return counted["count"], counted["expireAt"]
        fresh = {"count": amount, "expireAt": moment + window}
        if collection.update_one({"_id": key, "expireAt": {"$lte": moment}}, {"$set": fresh}).modified_count:
            return amount, fresh["expireAt"]
        with contextlib.suppress(DuplicateKeyError):
            collection.insert_one({"_id": key, **fresh})
            return amount, fresh["expireAt"]
