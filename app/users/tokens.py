"""Bearer tokens: 32 random bytes, of which only a SHA-256 digest is stored. A TTL index removes
expired ones; until it runs, the expiry is also checked on every use."""
import hashlib
import secrets
from datetime import timedelta

from flask import current_app

from app.database import get_db, now
from app.users import storage


def create_indexes(db):
    db.tokens.create_index("expiresAt", name="expiry", expireAfterSeconds=0)


def _digest(token):
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def issue(user):
    token = secrets.token_urlsafe(32)
    expires = now() + timedelta(seconds=current_app.config["TOKEN_SECONDS"])
    get_db().tokens.insert_one({"_id": _digest(token), "username": user["username"], "expiresAt": expires})
    return token, expires


def user_of(token):
    """The enabled user a live token belongs to, or None."""
    record = get_db().tokens.find_one({"_id": _digest(token), "expiresAt": {"$gt": now()}})
    user = record and storage.find(record["username"])
    return user if user and not user["disabled"] else None


def revoke(token):
    get_db().tokens.delete_one({"_id": _digest(token)})
