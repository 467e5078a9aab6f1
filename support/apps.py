"""Apps for tests and benchmarks: every setting at its default, whatever the environment holds
(so exported settings cannot change what they see), with a fast password hash, and the test
users."""

from app import config
from app.access import users
from support.http import PASSWORD

FAST_HASH = "pbkdf2:sha256:1000"  # the same code path as scrypt, without 100 ms a request
USERS = {"admin": "admin", "alice": "member", "bob": "member", "carol": "member", "victor": "viewer"}


def settings(**extra):
    """The defaults of every setting, whatever the environment holds, with test speed-ups."""
    return {
        **config.from_env({}),
        "TESTING": True,
        "PASSWORD_HASH_METHOD": FAST_HASH,
        "RATE_LIMIT": "100000 per minute",
        **extra,
    }


def add_users(app):
    with app.app_context():
        for name, role in USERS.items():
            users.create(name, PASSWORD, role)
