"""Bearer tokens: 32 random bytes, of which only a SHA-256 digest is stored, in a collection whose
TTL index removes expired ones.

Every bearer request reads its token's record (one read by `_id`): revoking a token deletes it,
and revoking every token of a user (`revoke_every`: a password change, a disable, `DELETE
/tokens?all=true`) deletes them all, so a revocation holds at once in every worker and host,
where a process's copy of the user record may be up to USER_CACHE_SECONDS old. The user record
still says the rest: whether the user is disabled, and the generation of tokens it accepts (a
token issued by a request that raced the revocation is of the generation before).
"""

import hashlib
import secrets
from datetime import timedelta

from flask import current_app

from app.access.users import store as users
from app.access.users import token_generation
from app.storage.database import get_db, now


class Tokens:
    """The `tokens` collection: a digest of each bearer token, its owner and its expiry."""

    def coll(self):
        return get_db().tokens

    def create_indexes(self):
        self.coll().create_index("expiresAt", name="expiry", expireAfterSeconds=0)
        self.coll().create_index("username", name="by_user")

    def issue(self, user, handoff=False):
        """A new token of `user` and its expiry; with `handoff`, one to be handed over once."""
        token = secrets.token_urlsafe(32)
        expires = now() + timedelta(seconds=current_app.config["TOKEN_SECONDS"])
        generation = token_generation(user)
        record = {"_id": _digest(token), "username": user["username"], "expiresAt": expires, "generation": generation}
        self.coll().insert_one({**record, **({"handoff": True} if handoff else {})})
        return token, expires

    def handed_over(self, token):
        """Whether `token`, issued to be handed over, is handed over now: true once, never again."""
        return (
            self.coll().update_one({"_id": _digest(token), "handoff": True}, {"$unset": {"handoff": ""}}).matched_count
            == 1
        )

    def user_of(self, token):
        """The enabled user a live, unrevoked token belongs to, or None."""
        digest = _digest(token)
        record = self.coll().find_one({"_id": digest})
        if record is None:
            return None
        username, expires, generation = record["username"], record["expiresAt"], record.get("generation", 0)
        if expires <= now():
            return None
        user = users.cached(username)
        if not user or user["disabled"] or generation < token_generation(user):
            return None
        if any(r["digest"] == digest for r in user.get("revokedTokens", ())):
            return None
        return user

    def revoke_every(self, username):
        """Every token of the user stops working, in every process at once."""
        users.revoke_tokens(username)
        self.coll().delete_many({"username": username})

    def revoke(self, token, user):
        """Delete the token, and list it on its user until it would have expired anyway."""
        digest = _digest(token)
        record = self.coll().find_one({"_id": digest})  # not find_one_and_delete: a scan on the embedded server
        if record is None or not self.coll().delete_one({"_id": digest}).deleted_count:
            return
        users.revoke_token(user, digest, record["expiresAt"])


store = Tokens()


def _digest(token):
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()
