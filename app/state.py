"""What the service keeps per Flask app, in one place (`app.extensions["catalog"]`): each part is
filled by the module that owns it when the app is made. Per app, not per module: tests make many
apps in one process, and nothing one of them remembers may answer for another."""

from dataclasses import dataclass, field
from typing import Any

from flask import current_app

KEY = "catalog"


@dataclass
class State:
    database: Any = None  # the pymongo Database (storage/database.py)
    collections: dict = field(default_factory=dict)  # name -> Collection, made once (storage/database.py)
    pagers: dict = field(default_factory=dict)  # collection name -> its Pager (storage/pages.py)
    users: Any = None  # username -> record, read at most USER_CACHE_SECONDS ago (access/users.py)
    verified: Any = None  # credentials digest -> the password hash they verified against (access/auth.py)
    quotas: Any = None  # each user's requests in the current window (access/request_quota.py)
    oidc_keys: dict = field(default_factory=dict)  # issuer -> its published keys as fetched (access/oidc.py)
    prepared: bool = False  # the database's indexes, secret and admin are in place (app/__init__.py)


def init_app(app):
    app.extensions[KEY] = State()


def of(app=None):
    """The state of `app` (None: the current app)."""
    return (current_app if app is None else app).extensions[KEY]
