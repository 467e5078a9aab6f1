"""Profiles in MongoDB. The single default per owner is held by the database itself: a partial
unique index on owner among defaults, and an atomic demotion of the old default before the new
one is written. A write that loses a race to another default retries, so it still succeeds."""
from pymongo import ASCENDING, DESCENDING
from pymongo.errors import DuplicateKeyError

from app.store import Store, now

MAX_ATTEMPTS = 100  # each failed attempt means another request's default was written


class Profiles(Store):
    collection = "profiles"

    @staticmethod
    def create_indexes(db):
        db.profiles.create_index([("owner", ASCENDING)], unique=True, name="one_default_per_owner",
                                 partialFilterExpression={"defaultProfile": True})
        db.profiles.create_index([("owner", ASCENDING), ("_id", DESCENDING)], name="owner_newest")

    def create(self, fields, user):
        if not fields["defaultProfile"]:
            return self.insert(fields, user)
        for _ in range(MAX_ATTEMPTS):
            self._demote_default(user["username"])
            try:
                return self.insert(fields, user)
            except DuplicateKeyError:
                continue
        raise RuntimeError("could not make a profile the default")

    def _demote_default(self, owner):
        self.coll().update_many({"owner": owner, "defaultProfile": True},
                                {"$set": {"defaultProfile": False, "updatedAt": now()}, "$inc": {"rev": 1}})


store = Profiles()
