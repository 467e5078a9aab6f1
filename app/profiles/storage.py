"""Profiles in MongoDB: read by their owner, admins and the users they are shared with
(`entitledUsers`); a container default never above the container maximum. The single
default per owner is held by the database itself: a partial
unique index on owner among defaults, and an atomic demotion of the old default before the new
one is written. A write that loses that race to another default demotes again and retries, so
it still succeeds.

A profile also holds its `usage` and the ledger of the changes of it under way (`ledger.<instance
id>`, one per instance at a time): an admission reserves, writes its instance, then settles or
takes back (app/instances/admission.py). An entry older than twice REQUEST_TIMEOUT belongs to a
request that died (gunicorn kills one running past it); `settled` concludes it by what the
instance store says of its instance, before every admission and every read of the profile."""

from datetime import timedelta

from bson import ObjectId
from flask import current_app
from pymongo import ASCENDING

from app.access import users
from app.errors import Conflict, Invalid
from app.instances.storage import store as instances
from app.model import quantities
from app.profiles import usage
from app.storage import list_keys
from app.storage.database import REDONE_IF_LOST, now
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
        return self.settled(super().get(id_text, user))

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

    # The ledger of usage

    def reserve(self, profile, instance_id, delta, entry):
        """Add what `delta` grows to the profile's usage and record `entry` (the operation) in its
        ledger, if no other operation of this instance is under way, the caps are still those of
        `profile`, and for each capped resource `delta` grows the room is there (`usage <= cap -
        change`). The entry as recorded, or None."""
        condition = {"_id": profile["_id"], f"ledger.{instance_id}": {"$exists": False}}
        for cap in quantities.CAPS:
            condition[cap] = profile.get(cap)  # a cap changed meanwhile: decide again
        limits = quantities.limits(profile)
        for key in usage.COUNTED:  # a requirement's amounts are named as `limits` names the caps
            if delta[key] > 0 and limits[key] is not None:
                condition[f"usage.{key}"] = {"$lte": limits[key] - delta[key]}
        recorded = {**entry, "delta": delta, "pending": usage.freed(delta), "at": now()}
        written = self.coll().update_one(
            condition,
            {
                "$inc": {f"usage.{key}": value for key, value in usage.grown(delta).items()},
                "$set": {f"ledger.{instance_id}": recorded},
            },
        )
        return recorded if written.matched_count == 1 else None

    def settle(self, profile_id, instance_id, entry):
        """The operation took place: what it frees leaves usage, and its entry goes."""
        self._conclude(profile_id, instance_id, entry, entry.get("pending", {}))

    def take_back(self, profile_id, instance_id, entry):
        """The operation did not take place: what its reservation added leaves usage, and its entry
        goes."""
        pending = entry.get("pending", {})
        self._conclude(
            profile_id, instance_id, entry, {key: pending.get(key, 0) - value for key, value in entry["delta"].items()}
        )

    def _conclude(self, profile_id, instance_id, entry, added):
        """Add `added` to usage and remove the entry, once: on the condition that the entry is still
        the one read, so that two requests concluding it at once do it once. Not journaled: a
        conclusion a crash loses leaves its entry, which `settled` concludes again."""
        self.coll().with_options(write_concern=REDONE_IF_LOST).update_one(
            {"_id": profile_id, f"ledger.{instance_id}.at": entry["at"]},
            {"$inc": {f"usage.{key}": value for key, value in added.items()}, "$unset": {f"ledger.{instance_id}": ""}},
        )

    def settled(self, profile):
        """`profile` (None: None) as it is once each ledger entry older than twice REQUEST_TIMEOUT
        is concluded by what the instance store says: settled where its change took place, taken
        back where it did not."""
        oldest = now() - timedelta(seconds=2 * current_app.config["REQUEST_TIMEOUT"])
        stale = [(key, entry) for key, entry in ((profile or {}).get("ledger") or {}).items() if entry["at"] < oldest]
        if not stale:
            return profile
        for instance_id, entry in stale:
            if usage.happened(entry, instances.rev_of(ObjectId(instance_id))):
                self.settle(profile["_id"], instance_id, entry)
            else:
                self.take_back(profile["_id"], instance_id, entry)
        return self.found(profile["_id"])


store = Profiles()
