"""Profiles in MongoDB. The single default per owner is held by the database itself: a partial
unique index on owner among defaults, and an atomic demotion of the old default before the new
one is written. A write that loses that race to another default demotes again and retries, so
it still succeeds."""

from pymongo import ASCENDING, DESCENDING

from app import pagination
from app.database import now
from app.resource_store import ResourceStore


class Profiles(ResourceStore):
    collection = "profiles"
    exact_filters = ("name", "owner", "defaultProfile")

    def create_indexes(self):
        self.coll().create_index(
            [("owner", ASCENDING)],
            unique=True,
            name="one_default_per_owner",
            partialFilterExpression={"defaultProfile": True},
        )
        self.coll().create_index([("owner", ASCENDING), ("_id", DESCENDING)], name="owner_newest")
        pagination.prepare(self.coll())

    def before_write(self, stored, changes):
        """A profile becoming the default demotes its owner's current default first (found through
        the partial index; the profile itself is not the default yet)."""
        if not changes.get("defaultProfile") or (stored or {}).get("defaultProfile"):
            return
        self.coll().update_many(
            {"owner": (stored or changes)["owner"], "defaultProfile": True},
            {"$set": {"defaultProfile": False, "updatedAt": now()}, "$inc": {"rev": 1}},
        )


store = Profiles()
