"""Profiles in MongoDB. The single default per owner is held by the database itself: a partial
unique index on owner among defaults, and an atomic demotion of the old default before the new
one is written. A write that loses that race to another default demotes again and retries, so
it still succeeds."""
from pymongo import ASCENDING, DESCENDING

from app.database import now
from app.store import Store, retry_on_duplicate


class Profiles(Store):
    collection = "profiles"
    exact_filters = ("name", "owner", "defaultProfile")

    def create_indexes(self):
        self.coll().create_index([("owner", ASCENDING)], unique=True, name="one_default_per_owner",
                                 partialFilterExpression={"defaultProfile": True})
        self.coll().create_index([("owner", ASCENDING), ("_id", DESCENDING)], name="owner_newest")

    def insert(self, fields, user, id=None):
        if not fields["defaultProfile"]:
            return super().insert(fields, user, id)

        def attempt():
            self._demote_default(user["username"])
            return super(Profiles, self).insert(fields, user, id)
        return retry_on_duplicate(attempt)

    def _write(self, doc, changes):
        if not changes.get("defaultProfile") or doc["defaultProfile"]:
            return super()._write(doc, changes)

        def attempt():
            self._demote_default(doc["owner"], keep=doc["_id"])
            return super(Profiles, self)._write(doc, changes)
        return retry_on_duplicate(attempt)

    def _demote_default(self, owner, keep=None):
        self.coll().update_many({"owner": owner, "defaultProfile": True, "_id": {"$ne": keep}},
                                {"$set": {"defaultProfile": False, "updatedAt": now()}, "$inc": {"rev": 1}})


store = Profiles()
