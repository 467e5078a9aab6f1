"""Profiles in MongoDB. The single default per owner is held by the database itself: a partial
unique index on owner among defaults, and an atomic demotion of the old default before the new
one is written. A write that loses that race to another default demotes again and retries, so
it still succeeds."""

from pymongo import ASCENDING

from app.errors import Invalid
from app.storage.database import now
from app.storage.resource_store import ResourceStore


class Profiles(ResourceStore):
    collection = "profiles"
    noun = "profile"
    filters = {"name": "name", "owner": "owner", "defaultProfile": "defaultProfile"}
    retired_indexes = ("owner_newest", "newest")

    def create_indexes(self):
        self.coll().create_index(
            [("owner", ASCENDING)],
            unique=True,
            name="one_default_per_owner",
            partialFilterExpression={"defaultProfile": True},
        )
        super().create_indexes()

    def before_write(self, stored, changes):
        """A profile becoming the default demotes its owner's current default first (found through
        the partial index; the profile itself is not the default yet), with the keys it is now
        found by. A demotion that loses a race leaves the other default in place, and the write
        that needed it fails on the unique index and comes back here."""
        if not changes.get("defaultProfile") or (stored or {}).get("defaultProfile"):
            return
        current = self._default((stored or changes)["owner"])
        if current is None:
            return
        demoted = self.rekeyed(current, {"defaultProfile": False, "updatedAt": now()})
        self.coll().update_one({"_id": current["_id"], "rev": current["rev"]}, {"$set": demoted, "$inc": {"rev": 1}})

    def default_of(self, user):
        """The caller's own default profile (an admin's too: never another owner's); a 422 naming
        `profile` when there is none, since the caller then has to name one."""
        doc = self._default(user["username"])
        if doc is None:
            raise Invalid({"profile": ["You have no default profile: name one."]})
        return doc

    def _default(self, owner):
        """`owner`'s default profile or None (the partial index serves it)."""
        return self.coll().find_one({"owner": owner, "defaultProfile": True})


store = Profiles()
