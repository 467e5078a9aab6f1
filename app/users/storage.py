"""Users in MongoDB, with salted slow password hashes (werkzeug's scrypt by default)."""
import contextlib
from datetime import UTC, datetime
from functools import lru_cache

from flask import current_app
from pymongo import ASCENDING
from pymongo.errors import DuplicateKeyError
from werkzeug.security import check_password_hash, generate_password_hash

from app.database import get_db
from app.users.schemas import UserSchema


class UsernameTaken(Exception):
    pass


def users():
    return get_db().users


def create_indexes(db):
    db.users.create_index([("username", ASCENDING)], unique=True, name="username_unique")


def create(username, password, role):
    """Insert a user after validating it with the same schema as the API; raises on a taken name."""
    fields = UserSchema().load({"username": username, "password": password, "role": role})
    doc = {
        "username": fields["username"],
        "passwordHash": generate_password_hash(fields["password"], current_app.config["PASSWORD_HASH_METHOD"]),
        "role": fields["role"],
        "disabled": False,
        "createdAt": datetime.now(UTC),
    }
    try:
        users().insert_one(doc)
    except DuplicateKeyError:
        raise UsernameTaken(username) from None
    return doc


@lru_cache(maxsize=8)
def _decoy_hash(method):
    return generate_password_hash("not a password", method)


def authenticate(username, password):
    """The enabled user these credentials belong to, or None.

    An unknown user costs one hash check too, so response times do not tell which names exist.
    """
    doc = users().find_one({"username": username}) if username else None
    stored = doc["passwordHash"] if doc else _decoy_hash(current_app.config["PASSWORD_HASH_METHOD"])
    if check_password_hash(stored, password or "") and doc and not doc.get("disabled"):
        return doc
    return None


def missing(usernames):
    """The names among `usernames` that no user has."""
    found = {d["username"] for d in users().find({"username": {"$in": list(usernames)}}, {"username": 1})}
    return [name for name in usernames if name not in found]


def ensure_admin(username, password):
    """The start-up admin from the environment; an existing user of that name is left as it is."""
    if users().count_documents({"username": username}, limit=1):
        return
    with contextlib.suppress(UsernameTaken):  # another worker made it first
        create(username, password, "admin")
