"""Each profile's `usage` and the ledger of the changes of it under way, in a document of their own
(`ledgers`, whose `_id` is the profile's), so that an admission's writes touch a document with no
index but `_id`: the embedded server rewrites a document's entries in every index on every update,
and lists find profiles by a multikey index (docs/instances.md). A profile
that nothing was ever admitted into has none (it reads as empty): the first reservation or a
delete's closing makes it, as an upsert. A deleted profile's ledger stays, closed (about 100
bytes): an admission that read the profile before it went would otherwise make it again. Only the
profile store calls this; the rules of reserving and concluding are its own."""

import threading

from pymongo.errors import DuplicateKeyError

from app.profiles import usage
from app.storage.database import REDONE_IF_LOST, collection, now, unsynced


class Ledgers:
    """The `ledgers` collection: each profile's usage and the ledger of its changes under way."""

    # A profile read with its ledger in one aggregation; `joined` makes it read as `of` answers
    JOINED = {"$lookup": {"from": "ledgers", "localField": "_id", "foreignField": "_id", "as": "ledgers"}}

    def coll(self):
        return collection("ledgers")

    def joined(self, profile):
        """A profile read with `JOINED`, its usage and ledger (or empty ones) in place of the lookup's list."""
        found = profile.pop("ledgers")
        parts = found[0] if found else _empty()
        parts.pop("_id", None)
        return {**profile, **parts}

    def keep(self, profile_id, usage_now, ledger):
        """A profile's usage and ledger as a migration moves them here from the profile's document."""
        self.coll().update_one({"_id": profile_id}, {"$set": {"usage": usage_now, "ledger": ledger}}, upsert=True)

    def of(self, profile_ids):
        """{profile id: {usage, ledger, and `closing` while a delete is under way}}; a profile without
        one (none is) reads as empty."""
        found = {doc.pop("_id"): doc for doc in self.coll().find({"_id": {"$in": list(profile_ids)}})}
        return {profile_id: found.get(profile_id) or _empty() for profile_id in profile_ids}

    def reserve(self, profile_id, instance_id, recorded, grown, bounds, done=None):
        """Add `grown` to usage and record the entry, if the ledger is open, holds no entry for
        `instance_id`, and `bounds` ({usage key: most it may be before}) hold; and remove the entries
        `done` names ({instance id: its `at`}: creates that took place, each on the condition that it
        is still the entry recorded); whether it did. A profile without a ledger gets one holding just
        this (its usage was zero, which the admission has fitted); one whose conditions fail is not
        made twice (the unique `_id`). Not journaled: the instance's journaled write follows it
        (database.unsynced)."""
        condition = {"_id": profile_id, f"ledger.{instance_id}": {"$exists": False}, "closing": {"$exists": False}}
        condition.update({f"usage.{key}": {"$lte": most} for key, most in bounds.items()})
        condition.update({f"ledger.{key}.at": at for key, at in (done or {}).items()})
        change = {
            "$inc": {f"usage.{key}": value for key, value in grown.items()},
            "$set": {f"ledger.{instance_id}": recorded},
        }
        if done:  # entries recorded in it: the ledger exists
            change["$unset"] = dict.fromkeys((f"ledger.{key}" for key in done), "")
            return unsynced(self.coll()).update_one(condition, change).matched_count == 1
        try:
            unsynced(self.coll()).update_one(condition, change, upsert=True)
        except DuplicateKeyError:  # it exists, and the conditions do not hold
            return False
        return True

    def conclude(self, profile_id, instance_id, entry, added):
        """Add `added` to usage and remove the entry, once: on the condition that the entry is still
        the one read, so that two requests concluding it at once do it once. Not journaled: a
        conclusion a crash loses leaves its entry, which is concluded again."""
        self.coll().with_options(write_concern=REDONE_IF_LOST).update_one(
            {"_id": profile_id, f"ledger.{instance_id}.at": entry["at"]},
            {"$inc": {f"usage.{key}": value for key, value in added.items()}, "$unset": {f"ledger.{instance_id}": ""}},
        )

    def observed(self, environment, sums):
        """Each profile's usage observed in `environment` ({profile id: amounts}), the profiles that
        have none there left without it."""
        key = f"observed.{environment}"
        for profile_id, amounts in sums.items():
            self.coll().update_one({"_id": profile_id}, {"$set": {key: amounts}})
        self.coll().update_many({key: {"$exists": True}, "_id": {"$nin": list(sums)}}, {"$unset": {key: ""}})

    def close(self, profile_id):
        """Refuse every reservation from now on, if no instance spends from the profile (its usage
        counts them, in-flight ones included): the moment it closed, or None."""
        moment = now()
        try:
            self.coll().update_one(
                {"_id": profile_id, "usage.instances": 0, "closing": {"$exists": False}},
                {"$set": {"closing": moment}, "$setOnInsert": {"ledger": {}, "usage": usage.ZERO}},
                upsert=True,
            )
        except DuplicateKeyError:  # it exists, and the conditions do not hold
            return None
        return moment

    def reopen(self, profile_id, closing):
        """Take reservations again: the delete that closed the ledger at `closing` did not happen."""
        self.coll().update_one({"_id": profile_id, "closing": closing}, {"$unset": {"closing": ""}})


store = Ledgers()


def _empty():
    return {"usage": dict(usage.ZERO), "ledger": {}}


class Finished:
    """Entries of creates that took place, by profile, which this process removes with its next
    reservation on that profile's ledger rather than with a write of their own: one write fewer
    for each create, whose entry adds nothing to usage when it goes. An entry a process never
    removes (it stopped; it reserves on that profile no more) is concluded as any other once its
    lease has passed, and one whose instance is changed first is concluded by that change."""

    def __init__(self):
        self._lock, self._by_profile = threading.Lock(), {}

    def add(self, profile_id, instance_id, at):
        with self._lock:
            self._by_profile.setdefault(profile_id, {})[instance_id] = at

    def take(self, profile_id):
        """{instance id: `at`} of the profile's, now the caller's to remove."""
        with self._lock:
            return self._by_profile.pop(profile_id, {})
