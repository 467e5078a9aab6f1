"""Failed-login throttling, kept in MongoDB so that it holds across workers and hosts, shaped so
that an attacker cannot lock others out (docs/security.md, "Guessing passwords").

A failure counts three times, each in a fixed window that starts with its first failure (a TTL
index removes it when the window ends): against the username from this client address, against
the client address, and against the username from every address. Past a limit, attempts are
refused with 429 before any password is checked, so a throttled guesser costs no hashing. Only
the first counter shuts out a user's own address: the other two (one address guessing many
names, many addresses guessing one) spare the usernames that signed in from that address within
KNOWN, so neither a guesser elsewhere nor one behind the same NAT locks a known user out.
"""

import hashlib
from datetime import timedelta

from flask import current_app, request

from app.access.users import store as users
from app.errors import TooManyRequests
from app.storage import counters
from app.storage.database import get_db, now

KNOWN = timedelta(days=30)  # how long a successful sign-in makes its address known for its username


def create_indexes(db):
    counters.create_ttl_index(db.auth_failures)


def _hashed(*parts):
    return hashlib.sha256("\0".join(parts).encode("utf-8", "surrogatepass")).hexdigest()


def verified(username, password):
    """The enabled user these credentials belong to, or None, the failure counted; 429 while this
    username, from this address, is throttled."""
    address = request.remote_addr or ""
    config, moment = current_app.config, now()
    limits = {
        "pair:" + _hashed(username, address): config["AUTH_MAX_FAILURES_PER_USER"],
        "addr:" + address: config["AUTH_MAX_FAILURES_PER_ADDRESS"],
        "user:" + _hashed(username): config["AUTH_MAX_FAILURES_PER_ACCOUNT"],
    }
    known = "known:" + _hashed(username, address)
    found = {doc["_id"]: doc for doc in get_db().auth_failures.find({"_id": {"$in": [*limits, known]}})}
    live = {key: doc for key, doc in found.items() if doc["expireAt"] > moment}
    for index, (key, limit) in enumerate(limits.items()):
        spared = index > 0 and known in live  # only the pair's own counter shuts out a known address
        if key in live and live[key]["count"] >= limit and not spared:
            raise TooManyRequests(
                "Too many failed attempts; retry later.", (live[key]["expireAt"] - moment).total_seconds()
            )
    user = users.authenticate(username, password)
    if user is None:
        for key in limits:
            counters.count_in_window(get_db().auth_failures, key, config["AUTH_FAILURE_WINDOW"])
        return None
    get_db().auth_failures.update_one({"_id": known}, {"$set": {"expireAt": moment + KNOWN}}, upsert=True)
    return user
