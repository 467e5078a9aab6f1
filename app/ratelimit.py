"""Requests per user, counted in MongoDB so that a limit holds across workers and hosts.

flask-limiter checks the limit of a decorated view when the view is called; `auth.login_required`
wraps every view with it inside authentication, so the key is the verified user, never a name a
client merely claims. A fixed window costs one atomic increment a request.
"""
import math
import time

from flask import current_app
from flask_limiter import Limiter, RateLimitExceeded

from app import errors

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
    app.config.setdefault("RATELIMIT_STORAGE_URI", app.config["MONGO_URI"] or "memory://")
    timeout = app.config["MONGO_TIMEOUT_MS"]  # pymongo's default would hold a request 30 s in an outage
    app.config.setdefault("RATELIMIT_STORAGE_OPTIONS", {
        "database_name": app.config["MONGO_DB"], "serverSelectionTimeoutMS": timeout,
        "connectTimeoutMS": timeout, "socketTimeoutMS": 10 * timeout})
    app.config.update(RATELIMIT_STRATEGY="fixed-window", RATELIMIT_HEADERS_ENABLED=False,
                      RATELIMIT_SWALLOW_ERRORS=True)  # a database outage is answered by the data calls: 503
    limiter.init_app(app)
    app.register_error_handler(RateLimitExceeded, _exceeded)
