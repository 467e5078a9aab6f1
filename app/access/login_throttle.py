"""Failed-login throttling, kept in MongoDB so that it holds across workers and hosts.

Each username and each client address has a counter of failures in a fixed window that starts
with its first failure; a TTL index removes it when the window ends. Past the limit, attempts
are refused with 429 before any password is checked, so a locked-out guesser costs no hashing.
"""

import hashlib

from flask import current_app, request

from app.errors import TooManyRequests
from app.storage import counters
from app.storage.database import get_db, now


def create_indexes(db):
    counters.create_ttl_index(db.auth_failures)


def keys(username=None):
    """The counters an attempt counts against: the client address, and the username if any."""
    found = [f"addr:{request.remote_addr}"]
    if username:
        found.append("user:" + hashlib.sha256(username.encode("utf-8", "surrogatepass")).hexdigest())
    return found


def _limit(key):
    config = current_app.config
    return config["AUTH_MAX_FAILURES_PER_USER" if key.startswith("user:") else "AUTH_MAX_FAILURES_PER_ADDRESS"]


def check(counter_keys):
    """429 with Retry-After while any of these counters is over its limit."""
    moment = now()
    for record in get_db().auth_failures.find({"_id": {"$in": counter_keys}, "expireAt": {"$gt": moment}}):
        if record["count"] >= _limit(record["_id"]):
            wait = (record["expireAt"] - moment).total_seconds()
            raise TooManyRequests("Too many failed attempts; retry later.", wait)


def record_failure(counter_keys):
    for key in counter_keys:
        counters.count_in_window(get_db().auth_failures, key, current_app.config["AUTH_FAILURE_WINDOW"])
