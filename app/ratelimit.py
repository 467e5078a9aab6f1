"""Requests per user, counted in MongoDB so that a limit holds across workers and hosts.

flask-limiter checks the limit of a decorated view when the view is called; `auth.login_required`
wraps every view with it inside authentication, so the key is the verified user, never a name a
client merely claims. A fixed window costs one atomic increment a request.
"""
import math
import time
from datetime import UTC, timedelta

from flask import current_app
from flask_limiter import Limiter, RateLimitExceeded
from limits.storage import MongoDBStorage

from app import errors
from app.database import count_in_window, now


class CounterStorage(MongoDBStorage):
    """limits' MongoDB storage, counting with plain $inc (`mongodb+counters://` URIs).

    Its own increment is an aggregation-pipeline update, which SecantusDB runs slowly: about
    6.5 ms a request here, more than the rest of a request together."""

    STORAGE_SCHEME = ["mongodb+counters"]

    def _init_mongo_client(self, uri, **options):
        return super()._init_mongo_client(uri.replace("mongodb+counters://", "mongodb://", 1), **options)

    def incr(self, key, expiry, amount=1):
        return count_in_window(self.counters, key, timedelta(seconds=expiry), amount)

    def get(self, key):
        counter = self.counters.find_one({"_id": key, "expireAt": {"$gt": now()}})
        return counter["count"] if counter else 0

    def get_expiry(self, key):
        counter = self.counters.find_one({"_id": key})
        return counter["expireAt"].replace(tzinfo=UTC).timestamp() if counter else time.time()

limiter = Limiter(key_func=lambda: "unused")  # every limit below names its own key


def _user_key():
    from app.auth import current_user

    return f"user:{current_user()['username']}"


def per_user(view):
    return limiter.limit(lambda: current_app.config["RATE_LIMIT"], key_func=_user_key)(view)


def _exceeded(exc):
    """flask-limiter's own headers would put Retry-After on every response; only a 429 has it."""
    current = limiter.current_limit
    wait = math.ceil(current.reset_at - time.time()) if current else 1
    return errors.problem(429, detail=f"More than {exc.limit.limit} requests; retry later.",
                          headers={"Retry-After": str(max(wait, 1))})


def close():
    """Close the storage's own MongoDB client while the interpreter is whole; left to its
    __del__, the close runs during shutdown and prints a traceback."""
    if hasattr(limiter.storage, "storage"):  # the MongoDB storage (the memory one has no client)
        limiter.storage.storage.close()


def init_app(app):
    uri = app.config["MONGO_URI"]
    if not app.config.get("RATELIMIT_STORAGE_URI"):
        app.config["RATELIMIT_STORAGE_URI"] = uri.replace("mongodb://", "mongodb+counters://", 1) if uri else "memory://"
    timeout = app.config["MONGO_TIMEOUT_MS"]  # pymongo's default would hold a request 30 s in an outage
    app.config.setdefault("RATELIMIT_STORAGE_OPTIONS", {
        "database_name": app.config["MONGO_DB"], "serverSelectionTimeoutMS": timeout,
        "connectTimeoutMS": timeout, "socketTimeoutMS": 10 * timeout})
    app.config.update(RATELIMIT_STRATEGY="fixed-window", RATELIMIT_HEADERS_ENABLED=False,
                      RATELIMIT_SWALLOW_ERRORS=True)  # a database outage is answered by the data calls: 503
    limiter.init_app(app)
    app.register_error_handler(RateLimitExceeded, _exceeded)
