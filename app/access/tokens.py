"""Bearer tokens: 32 random bytes, of which only a SHA-256 digest is stored, in a collection whose
TTL index removes expired ones.

Which user a token belongs to and when it expires never change, so each process remembers them
after the first lookup; what can change is checked on every request in the user's record, which
authentication needs anyway: whether the user is disabled, which tokens were revoked one by one,
and the generation of tokens it accepts (a password change, a disable or a revocation of them all
starts a new one). So a bearer request costs what a Basic one costs, and a revocation applies as
soon as a change of the user record does (`users.current`).
"""

import hashlib
import secrets
from datetime import timedelta

from flask import current_app

from app.access import users
from app.storage.cache import TtlCache
from app.storage.database import get_db, now

owners = TtlCache(size=4096)  # token digest -> (username, expiresAt, generation)


def create_indexes(db):
    db.tokens.create_index("expiresAt", name="expiry", expireAfterSeconds=0)


def _digest(token):
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def issue(user):
    token = secrets.token_urlsafe(32)
    expires = now() + timedelta(seconds=current_app.config["TOKEN_SECONDS"])
    generation = users.token_generation(user)
    record = {"_id": _digest(token), "username": user["username"], "expiresAt": expires, "generation": generation}
    get_db().tokens.insert_one(record)
    return token, expires


def user_of(token):
    """The enabled user a live, unrevoked token belongs to, or None."""
    digest = _digest(token)
    owner = owners.get(digest)
    if owner is None:
        record = get_db().tokens.find_one({"_id": digest})
        if record is None:
            return None
        owner = (record["username"], record["expiresAt"], record.get("generation", 0))
        owners.put(digest, owner, ttl=current_app.config["TOKEN_SECONDS"])
    username, expires, generation = owner
    if expires <= now():
        return None
    user = users.current(username)
    if not user or user["disabled"] or users.token_generation(user) != generation:
        return None
    if any(r["digest"] == digest for r in user.get("revokedTokens", ())):
        return None
    return user


def revoke(token, user):
    """Delete the token, and list it on its user until it would have expired anyway."""
    digest = _digest(token)
    record = get_db().tokens.find_one({"_id": digest})  # not find_one_and_delete: a scan on the embedded server
    if record is None or not get_db().tokens.delete_one({"_id": digest}).deleted_count:
        return
    users.revoke_token(user, digest, record["expiresAt"])
