"""Profiles in MongoDB: read by their owner, admins and the users they are shared with
(`entitledUsers`); a container default never above the container maximum. The single
default per owner is held by the database itself: a partial
unique index on owner among defaults, and an atomic demotion of the old default before the new
one is written. A write that loses that race to another default demotes again and retries, so
it still succeeds."""

from pymongo import ASCENDING

from app.access import users
from app.errors import Conflict, Invalid
from app.model import quantities
from app.profiles import usage
from app.storage import list_keys
from app.storage.database import now
from app.storage.resource_store import ResourceStore


class Profiles(ResourceStore):
    collection = "profiles"
    noun = "profile"
    filters = {"name": "name", "owner": "owner", "defaultProfile": "defaultProfile"}
    retired_indexes = ("owner_newest", "newest", "one_per_source")

    def create_indexes(self):
        """One default per owner; one profile per owner, import source and key."""
        self.create_source_index()
        self.coll().create_index(
            [("owner", ASCENDING)],
            unique=True,
            name="one_default_per_owner",
            partialFilterExpression={"defaultProfile": True},
        )
        super().create_indexes()

    def scopes(self, doc):
        """Its owner and admins, and the users it is shared with."""
        named = doc.get("entitledUsers") or ()
        return [list_keys.ADMINS, doc["owner"]], [user for user in named if user != doc["owner"]]

    def get(self, id_text, user):
        """A profile the user may read, its usage settled where a crashed request left it unsettled."""
        return usage.repair(super().get(id_text, user))

    def deletable(self, doc):
        """A profile no instance spends from (its usage counts them, in flight ones included)."""
        return {"usage.instances": 0}

    def refused_delete(self, doc):
        count = doc["usage"]["instances"]
        return Conflict(
            f"{count} instance{'s' if count != 1 else ''} spend{'s' if count == 1 else ''} from this "
            "profile: delete them first."
        )

    def apply_rules(self, changes, stored, user):
        """`entitledUsers` kept once each, in order, and existing; no default over the maximum (a
        LimitRange with one is refused too); a new profile's usage starts at zero."""
        if stored is None:
            changes["usage"] = usage.ZERO
        if "entitledUsers" in changes:
            changes["entitledUsers"] = list(dict.fromkeys(changes["entitledUsers"] or []))
            users.check_entitled(changes["entitledUsers"], user)
        if {"containerDefaults", "containerMax"} & set(changes):
            merged = quantities.limits({**(stored or {}), **changes})
            over = [
                member
                for member, (key, _) in quantities.PER_CONTAINER.items()
                if None not in (merged["containerDefaults"][key], merged["containerMax"][key])
                and merged["containerDefaults"][key] > merged["containerMax"][key]
            ]
            if over:
                raise Invalid(
                    {f"containerDefaults.{member}": ["Must not be more than containerMax."] for member in over}
                )
        return changes

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
