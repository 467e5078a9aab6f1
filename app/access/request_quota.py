"""The request quota (RATE_LIMIT): requests per user over all workers and hosts, applied after
authentication, counted in fixed windows in MongoDB. Each process reserves a share of a window
(at most 1/64 of what is left) and spends it locally, so the limit is never exceeded at about one
database call per 64 requests (docs/security.md, "Signing in, cheaply and across workers")."""

import threading
import time
from datetime import timedelta
from functools import lru_cache

from flask import current_app
from limits import parse

from app import state
from app.errors import TooManyRequests
from app.storage.cache import TtlCache
from app.storage.counters import count_in_window, create_ttl_index
from app.storage.database import get_db

MAX_SHARE = 64


class Share:
    """What this process may still spend of one key's current window."""

    def __init__(self, ends, left, remaining):
        self.ends, self.left, self.remaining = ends, left, remaining  # ends: epoch seconds


class Quotas:
    def __init__(self):
        self.shares = TtlCache(size=4096)
        self.lock = threading.Lock()

    def take(self, key, limit):
        """Seconds to wait before `key` may make a request; 0 means it may go ahead now."""
        with self.lock:
            share = self.shares.get(key)
            if share and share.left:
                share.left -= 1
                return 0
            if share and share.remaining <= 0:
                return share.ends - time.time()
            want = max(1, min(MAX_SHARE, (share.remaining if share else limit.amount) // MAX_SHARE))
        count, ends = count_in_window(get_db().rate_limits, key, timedelta(seconds=limit.get_expiry()), want)
        granted = max(0, min(want, limit.amount - (count - want)))
        ends = ends.timestamp()
        with self.lock:
            share = Share(ends, max(granted - 1, 0), limit.amount - count)
            self.shares.put(key, share, ttl=ends - time.time())
        return 0 if granted else ends - time.time()


@lru_cache(maxsize=8)
def _parsed(text):
    return parse(text)


def check(username):
    """A 429 (TooManyRequests) once `username` is over the limit."""
    limit = _parsed(current_app.config["RATE_LIMIT"])
    wait = state.of().quotas.take(f"user:{username}", limit)
    if wait:
        raise TooManyRequests(f"More than {limit.amount} requests; retry later.", wait)


def create_indexes(db):
    create_ttl_index(db.rate_limits)


def init_app(app):
    state.of(app).quotas = Quotas()
