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


class Users:
    """The `users` collection: accounts, their credentials and roles, each record cached in-process for a second."""

    def coll(self):
        return database.collection("users")

    def create_indexes(self):
        """Usernames unique, and unique again compared without case (`alice` and `Alice` would be two
        people to a reader, one to a sign-in that folds case); users stored before get their folded
        key here, but the later of two that fold alike, which keep working and are logged."""
        users = self.coll()
        users.create_index([("username", ASCENDING)], unique=True, name="username_unique")
        users.create_index(
            [(FOLDED, ASCENDING)],
            unique=True,
            name="username_folded_unique",
            partialFilterExpression={FOLDED: {"$type": "string"}},
        )
        for doc in users.find({FOLDED: {"$exists": False}}, {"username": 1}).sort("_id", ASCENDING):
            try:
                users.update_one({"_id": doc["_id"]}, {"$set": {FOLDED: folded(doc["username"])}})
            except DuplicateKeyError:
                users.update_one({"_id": doc["_id"]}, {"$set": {FOLDED: None}})
                log.warning("user %r: another user's name differs from it only in case", doc["username"])
        if "bound_once" not in users.index_information():  # mongomock checks a partial index again over all
            users.create_index(
                [("oidc.issuer", ASCENDING), ("oidc.subject", ASCENDING)],
                unique=True,
                name="bound_once",
                partialFilterExpression={"oidc.subject": {"$type": "string"}},
            )
        pages.prepare(users, by_id_alone=True)

    def create(self, username, password, role):
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
            self.coll().insert_one(doc)
        except DuplicateKeyError:
            raise UsernameTaken(username) from None
        return doc

    def find(self, username):
        return self.coll().find_one({"username": username})

    def bound(self, issuer, subject):
        """The user an identity provider's subject is bound to, or None."""
        return self.coll().find_one({"oidc.issuer": issuer, "oidc.subject": subject})

    def create_bound(self, username, issuer, subject):
        """A member made at a first single sign-on, bound to the subject and without a password;
        None when the username (or the subject) is taken."""
        doc = {
            "username": username,
            FOLDED: folded(username),
            "passwordHash": None,
            "role": "member",
            "disabled": False,
            "oidc": {"issuer": issuer, "subject": subject},
            "createdAt": now(),
        }
        try:
            self.coll().insert_one(doc)
        except DuplicateKeyError:
            return None
        return doc

    def link(self, username, issuer, subject):
        """Bind an existing user to a provider's subject (an admin's `flask users link`), in place
        of any subject it was bound to."""
        self._set(username, oidc={"issuer": issuer, "subject": subject})

    def set_groups(self, username, groups):
        """The groups a provider last said the user is in (access/oidc.py reconciles on a change)."""
        self._set(username, oidcGroups=groups)

    def cached(self, username):
        """The user record as read at most USER_CACHE_SECONDS ago by this process (the hot path:
        every authenticated request needs it). A change made here drops the copy at once."""
        cache = state.of().users
        doc = cache.get(username)
        if doc is None:
            doc = self.find(username)
            if doc:
                cache.put(username, doc, current_app.config["USER_CACHE_SECONDS"])
        return doc

    def forget(self, username):
        state.of().users.drop(username)

    def init_app(self, app):
        state.of(app).users = TtlCache(size=4096)

    def page(self, limit, position=None):
        return pages.pager(self.coll()).read(EVERY_USER, limit, position)

    def _set(self, username, revoke_tokens=False, **fields):
        """Set `fields` on the user; with `revoke_tokens`, every token issued to it so far stops
        working (a new generation; the provider's tokens issued until now: enabling the user again
        brings none back)."""
        if revoke_tokens:
            fields = {**fields, "tokensRevokedAt": now()}
        update = {"$set": fields} if fields else {}
        if revoke_tokens:
            update["$inc"] = {TOKEN_GENERATION: 1}
        matched = self.coll().update_one({"username": username}, update).matched_count
        self.forget(username)  # after the write: a request in between would cache the old record again
        if not matched:
            raise NoSuchUser(username)

    def set_password(self, username, password):
        PASSWORD(password)  # raises marshmallow.ValidationError
        self._set(username, revoke_tokens=True, passwordHash=_hash(password))

    def set_role(self, username, role):
        ma.validate.OneOf(ROLES)(role)
        self._set(username, role=role)

    def set_disabled(self, username, disabled):
        self._set(username, revoke_tokens=disabled, disabled=disabled)

    def revoke_tokens(self, username):
        """Every token of the user stops working."""
        self._set(username, revoke_tokens=True)

    def revoke_token(self, user, digest, expires_at):
        """List one token (by its digest) as revoked on its user until it would have expired anyway;
        those whose time is past leave the list."""
        self.coll().update_one({"_id": user["_id"]}, {"$pull": {"revokedTokens": {"expiresAt": {"$lte": now()}}}})
        self.coll().update_one(
            {"_id": user["_id"]}, {"$push": {"revokedTokens": {"digest": digest, "expiresAt": expires_at}}}
        )
        self.forget(user["username"])

    def every(self):
        """Every user's name, role and status, oldest first."""
        return self.coll().find({}, {"username": 1, "role": 1, "disabled": 1}).sort("_id", 1)

    def authenticate(self, username, password):
        """The enabled user these credentials belong to, or None.

        An unknown user costs one hash check too, so response times do not tell which names exist.
        """
        doc = self.cached(username)
        hashed = doc and doc["passwordHash"]  # None: a user who signs in through the provider alone
        stored = hashed or _decoy_hash(current_app.config["PASSWORD_HASH_METHOD"])
        if check_password_hash(stored, password) and hashed and not doc["disabled"]:
            return doc
        return None

    def missing(self, usernames):
        """The names among `usernames` that no user has."""
        found = {d["username"] for d in self.coll().find({"username": {"$in": list(usernames)}}, {"username": 1})}
        return [name for name in usernames if name not in found]

    def check_entitled(self, named, caller):
        """A 422 naming `entitledUsers` when a name in it is no user's (no query for nobody); which
        one only to an admin, since which usernames exist is theirs alone to learn."""
        unknown = self.missing(named) if named else []
        if unknown:
            which = f" No such user: {', '.join(unknown)}." if is_admin(caller) else ""
            raise Invalid({"entitledUsers": [f"Not every name is a user.{which}"]})

    def ensure_admin(self, username, password):
        """The start-up admin from the environment; an existing user of that name is left as it is."""
        if self.find(username):
            return
        with contextlib.suppress(UsernameTaken):  # another worker made it first
            self.create(username, password, "admin")


store = Users()


def folded(username):
    """A username as compared for uniqueness: Unicode case folding of its NFKC form."""
    return unicodedata.normalize("NFKC", username).casefold()


def _hash(password):
    return generate_password_hash(password, current_app.config["PASSWORD_HASH_METHOD"])


TOKEN_GENERATION = "tokenGeneration"  # noqa: S105 (a field name): tokens of another generation are revoked


EVERY_USER = ListQuery(({},), lambda user: True, plain=True)


def token_generation(user):
    """The generation of the tokens the user's record accepts (0 for a record stored before)."""
    return user.get(TOKEN_GENERATION, 0)


@lru_cache(maxsize=8)
def _decoy_hash(method):
    return generate_password_hash("not a password", method)
