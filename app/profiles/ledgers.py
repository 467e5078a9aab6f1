"""Each profile's `usage` and the ledger of the changes of it under way, in a document of their own
(`ledgers`, whose `_id` is the profile's), so that an admission's writes touch a document with no
index but `_id`: the embedded server rewrites a document's entries in every index on every update,
and lists find profiles by a multikey index (docs/design.md, "Instances and usage"). Only the
profile store calls this; the rules of reserving and concluding are its own."""

from app.profiles import usage
from app.storage.database import REDONE_IF_LOST, collection, now, unsynced


def coll():
    return collection("ledgers")


def open_for(profile_id):
    """A new profile's ledger, empty (again: a retried create finds it). Made durable by the
    profile's own journaled insert, which follows it."""
    unsynced(coll()).update_one({"_id": profile_id}, {"$setOnInsert": _empty()}, upsert=True)


def keep(profile_id, usage_now, ledger):
    """A profile's usage and ledger as a migration moves them here from the profile's document."""
    coll().update_one({"_id": profile_id}, {"$set": {"usage": usage_now, "ledger": ledger}}, upsert=True)


def of(profile_ids):
    """{profile id: {usage, ledger, and `closing` while a delete is under way}}; a profile without
    one (none is) reads as empty."""
    found = {doc.pop("_id"): doc for doc in coll().find({"_id": {"$in": list(profile_ids)}})}
    return {profile_id: found.get(profile_id) or _empty() for profile_id in profile_ids}


def _empty():
    return {"usage": dict(usage.ZERO), "ledger": {}}


def reserve(profile_id, instance_id, recorded, grown, bounds):
    """Add `grown` to usage and record the entry, if the ledger is open, holds no entry for
    `instance_id`, and `bounds` ({usage key: most it may be before}) hold; whether it did. Not
    journaled: the instance's journaled write follows it (database.unsynced)."""
    condition = {"_id": profile_id, f"ledger.{instance_id}": {"$exists": False}, "closing": {"$exists": False}}
    condition.update({f"usage.{key}": {"$lte": most} for key, most in bounds.items()})
    written = unsynced(coll()).update_one(
        condition,
        {"$inc": {f"usage.{key}": value for key, value in grown.items()}, "$set": {f"ledger.{instance_id}": recorded}},
    )
    return written.matched_count == 1


def conclude(profile_id, instance_id, entry, added):
    """Add `added` to usage and remove the entry, once: on the condition that the entry is still
    the one read, so that two requests concluding it at once do it once. Not journaled: a
    conclusion a crash loses leaves its entry, which is concluded again."""
    coll().with_options(write_concern=REDONE_IF_LOST).update_one(
        {"_id": profile_id, f"ledger.{instance_id}.at": entry["at"]},
        {"$inc": {f"usage.{key}": value for key, value in added.items()}, "$unset": {f"ledger.{instance_id}": ""}},
    )


def close(profile_id):
    """Refuse every reservation from now on, if no instance spends from the profile (its usage
    counts them, in-flight ones included): the moment it closed, or None."""
    moment = now()
    written = coll().update_one(
        {"_id": profile_id, "usage.instances": 0, "closing": {"$exists": False}}, {"$set": {"closing": moment}}
    )
    return moment if written.matched_count == 1 else None


def reopen(profile_id, closing):
    """Take reservations again: the delete that closed the ledger at `closing` did not happen."""
    coll().update_one({"_id": profile_id, "closing": closing}, {"$unset": {"closing": ""}})


def remove(profile_id):
    """The ledger of a deleted profile goes after it."""
    coll().delete_one({"_id": profile_id})
