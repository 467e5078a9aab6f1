"""Users in MongoDB, with salted slow password hashes (werkzeug's scrypt by default)."""

import contextlib
import logging
import unicodedata
from functools import lru_cache

import marshmallow as ma
from flask import current_app
from pymongo import ASCENDING
from pymongo.errors import DuplicateKeyError
from werkzeug.security import check_password_hash, generate_password_hash

from app import state
from app.access.schemas import UserSchema
from app.errors import Invalid
from app.model.accounts import PASSWORD, ROLES, is_admin
from app.storage import database, pages
from app.storage.cache import TtlCache
from app.storage.database import now
from app.storage.list_keys import ListQuery

FOLDED = "usernameFolded"  # the username as uniqueness compares it (`folded`)
log = logging.getLogger(__name__)


class UsernameTaken(Exception):
    pass


class NoSuchUser(Exception):
    pass


def _stored():
    return database.collection("users")


def create_indexes(db):
    """Usernames unique, and unique again compared without case (`alice` and `Alice` would be two
    people to a reader, one to a sign-in that folds case); users stored before get their folded
    key here, but the later of two that fold alike, which keep working and are logged."""
    db.users.create_index([("username", ASCENDING)], unique=True, name="username_unique")
    db.users.create_index(
        [(FOLDED, ASCENDING)],
        unique=True,
        name="username_folded_unique",
        partialFilterExpression={FOLDED: {"$type": "string"}},
    )
    for doc in db.users.find({FOLDED: {"$exists": False}}, {"username": 1}).sort("_id", ASCENDING):
        try:
            db.users.update_one({"_id": doc["_id"]}, {"$set": {FOLDED: folded(doc["username"])}})
        except DuplicateKeyError:
            db.users.update_one({"_id": doc["_id"]}, {"$set": {FOLDED: None}})
            log.warning("user %r: another user's name differs from it only in case", doc["username"])
    pages.prepare(db.users, by_id_alone=True)


def folded(username):
    """A username as compared for uniqueness: Unicode case folding of its NFKC form."""
    return unicodedata.normalize("NFKC", username).casefold()


def _hash(password):
    return generate_password_hash(password, current_app.config["PASSWORD_HASH_METHOD"])


def create(username, password, role):
    """Insert a user after validating it with the same schema as the API; raises on a taken name."""
    fields = UserSchema().load({"username": username, "password": password, "role": role})
    doc = {
        "username": fields["username"],
        FOLDED: folded(fields["username"]),
        "passwordHash": _hash(fields["password"]),
        "role": fields["role"],
        "disabled": False,
        "createdAt": now(),
    }
    try:
        _stored().insert_one(doc)
    except DuplicateKeyError:
        raise UsernameTaken(username) from None
    return doc


TOKEN_GENERATION = "tokenGeneration"  # noqa: S105 (a field name): tokens of another generation are revoked


def find(username):
    return _stored().find_one({"username": username})


def cached(username):
    """The user record as read at most USER_CACHE_SECONDS ago by this process (the hot path:
    every authenticated request needs it). A change made here drops the copy at once."""
    cache = state.of().users
    doc = cache.get(username)
    if doc is None:
        doc = find(username)
        if doc:
            cache.put(username, doc, current_app.config["USER_CACHE_SECONDS"])
    return doc


def forget(username):
    state.of().users.drop(username)


def init_app(app):
    state.of(app).users = TtlCache(size=4096)


EVERY_USER = ListQuery(({},), lambda user: True, plain=True)


def page(limit, position=None):
    return pages.pager(_stored()).read(EVERY_USER, limit, position)


def _set(username, revoke_tokens=False, **fields):
    """Set `fields` on the user; with `revoke_tokens`, every token issued to it so far stops
    working (a new generation: enabling the user again brings none back)."""
    update = {"$set": fields} if fields else {}
    if revoke_tokens:
        update["$inc"] = {TOKEN_GENERATION: 1}
    matched = _stored().update_one({"username": username}, update).matched_count
    forget(username)  # after the write: a request in between would cache the old record again
    if not matched:
        raise NoSuchUser(username)


def set_password(username, password):
    PASSWORD(password)  # raises marshmallow.ValidationError
    _set(username, revoke_tokens=True, passwordHash=_hash(password))


def set_role(username, role):
    ma.validate.OneOf(ROLES)(role)
    _set(username, role=role)


def set_disabled(username, disabled):
    _set(username, revoke_tokens=disabled, disabled=disabled)


def revoke_tokens(username):
    """Every token of the user stops working."""
    _set(username, revoke_tokens=True)


def revoke_token(user, digest, expires_at):
    """List one token (by its digest) as revoked on its user until it would have expired anyway;
    those whose time is past leave the list."""
    _stored().update_one({"_id": user["_id"]}, {"$pull": {"revokedTokens": {"expiresAt": {"$lte": now()}}}})
    _stored().update_one(
        {"_id": user["_id"]}, {"$push": {"revokedTokens": {"digest": digest, "expiresAt": expires_at}}}
    )
    forget(user["username"])


def every():
    """Every user's name, role and status, oldest first."""
    return _stored().find({}, {"username": 1, "role": 1, "disabled": 1}).sort("_id", 1)


def token_generation(user):
    """The generation of the tokens the user's record accepts (0 for a record stored before)."""
    return user.get(TOKEN_GENERATION, 0)


@lru_cache(maxsize=8)
def _decoy_hash(method):
    return generate_password_hash("not a password", method)


def authenticate(username, password):
    """The enabled user these credentials belong to, or None.

    An unknown user costs one hash check too, so response times do not tell which names exist.
    """
    doc = cached(username)
    stored = doc["passwordHash"] if doc else _decoy_hash(current_app.config["PASSWORD_HASH_METHOD"])
    if check_password_hash(stored, password) and doc and not doc["disabled"]:
        return doc
    return None


def missing(usernames):
    """The names among `usernames` that no user has."""
    found = {d["username"] for d in _stored().find({"username": {"$in": list(usernames)}}, {"username": 1})}
    return [name for name in usernames if name not in found]


def check_entitled(named, caller):
    """A 422 naming `entitledUsers` when a name in it is no user's (no query for nobody); which
    one only to an admin, since which usernames exist is theirs alone to learn."""
    unknown = missing(named) if named else []
    if unknown:
        which = f" No such user: {', '.join(unknown)}." if is_admin(caller) else ""
        raise Invalid({"entitledUsers": [f"Not every name is a user.{which}"]})


def ensure_admin(username, password):
    """The start-up admin from the environment; an existing user of that name is left as it is."""
    if find(username):
        return
    with contextlib.suppress(UsernameTaken):  # another worker made it first
        create(username, password, "admin")
