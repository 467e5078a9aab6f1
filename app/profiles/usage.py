"""A profile's `usage`: the sum of its instances' requirements and their count, kept on the profile
itself, so that reading it and admitting against it cost one document whatever the number of
instances.

The embedded server has no multi-document transactions, so a change of usage and the instance
write it pays for are two writes, joined by a ledger on the profile. An operation first reserves:
one conditional update of the profile that checks the room left (for every capped resource the
change grows, `usage <= cap - change`, the caps as read), adds the change to `usage` and records
it under `ledger.<instance id>` (one operation per instance at a time). Then the instance is
written, then the entry is removed. A crash in between leaves the entry; once it is older than
twice REQUEST_TIMEOUT (gunicorn kills a request running past it), `repair` settles it by looking
at the instance: a create that made its instance, an upgrade that wrote its version, stay
counted; one that did not is taken back; a delete is carried through. Until then the usage counts
the change, so a crash can only make room look smaller for a while, never larger
(docs/design.md, "Instances and usage")."""

from datetime import timedelta

from bson import ObjectId
from flask import current_app

from app.model import quantities
from app.storage.database import collection, now

COUNTED = ("memoryBytes", "cpuMillis", "containers", "storageBytes")  # a requirement's amounts
FIELDS = (*COUNTED, "instances")
ZERO = dict.fromkeys(FIELDS, 0)


def change(new=None, old=None):
    """What replacing `old` requirements with `new` (None: no instance) changes in usage."""
    return {key: _counted(new, key) - _counted(old, key) for key in FIELDS}


def _counted(requirements, key):
    """What one instance with `requirements` (None: none) adds to `key` of usage."""
    if requirements is None:
        return 0
    return 1 if key == "instances" else requirements.get(key, 0)


def reserve(profile, instance_id, delta, limits, entry):
    """Add `delta` to the profile's usage and record `entry` (the operation) in its ledger, if no
    other operation of this instance is in flight and, for each capped resource `delta` grows, the
    room is there; the caps must still be those of `limits` (read with `profile`). The entry as
    recorded, or None."""
    condition = {"_id": profile["_id"], f"ledger.{instance_id}": {"$exists": False}}
    for cap in quantities.CAPS:
        condition[cap] = profile.get(cap)  # a cap changed meanwhile: decide again
    for key in COUNTED:  # a requirement's amounts are named as `limits` names the caps
        if delta[key] > 0 and limits[key] is not None:
            condition[f"usage.{key}"] = {"$lte": limits[key] - delta[key]}
    recorded = {**entry, "delta": delta, "at": now()}
    written = collection("profiles").update_one(
        condition,
        {"$inc": {f"usage.{key}": value for key, value in delta.items()}, "$set": {f"ledger.{instance_id}": recorded}},
    )
    return recorded if written.matched_count == 1 else None


def settle(profile_id, instance_id):
    """The operation is done: its ledger entry goes."""
    collection("profiles").update_one({"_id": profile_id}, {"$unset": {f"ledger.{instance_id}": ""}})


def take_back(profile_id, instance_id, entry):
    """The operation did not happen: its change leaves usage with its entry (once: on the
    condition that the entry is still the one read)."""
    collection("profiles").update_one(
        {"_id": profile_id, f"ledger.{instance_id}.at": entry["at"]},
        {
            "$inc": {f"usage.{key}": -value for key, value in entry["delta"].items()},
            "$unset": {f"ledger.{instance_id}": ""},
        },
    )


def repair(profile):
    """Settle each ledger entry of `profile` older than twice REQUEST_TIMEOUT (its request is gone)
    by what its instance says: a create that made its instance and an upgrade that wrote its
    version stay counted, others are taken back; a delete is carried through (unless its instance
    changed before it: then it is taken back). The profile as it then is."""
    oldest = now() - timedelta(seconds=2 * current_app.config["REQUEST_TIMEOUT"])
    stale = [(key, entry) for key, entry in ((profile or {}).get("ledger") or {}).items() if entry["at"] < oldest]
    if not stale:
        return profile
    instances = collection("instances")
    for instance_id, entry in stale:
        instance = instances.find_one({"_id": ObjectId(instance_id)}, {"rev": 1})
        if entry["op"] == "delete" and instance is not None and instance["rev"] == entry["rev"]:
            instances.delete_one({"_id": ObjectId(instance_id), "rev": entry["rev"]})  # carried through
            settle(profile["_id"], instance_id)
        elif _happened(entry, instance):
            settle(profile["_id"], instance_id)
        else:
            take_back(profile["_id"], instance_id, entry)
    return collection("profiles").find_one({"_id": profile["_id"]})


def _happened(entry, instance):
    """Whether the operation of a ledger entry took effect on its instance (None: there is none)."""
    if entry["op"] == "create":
        return instance is not None
    if entry["op"] == "upgrade":
        return instance is not None and instance["rev"] >= entry["rev"]
    return instance is None  # a delete
