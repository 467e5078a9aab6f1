"""Sources in MongoDB: read and changed by their owner (a user, or a team's members) and admins.

Their URL is checked on every write (access/addresses.py), their credentials sealed (access/sealing.py). Beside
the versioned fields a source keeps what its syncs write without a new version: which job syncs
it now (`syncing`, taken by one request at a time: two syncs at once are one), its last sync, when
the schedule syncs it next, and the ids of the last webhook deliveries (each is taken once)."""

from datetime import timedelta

from flask import current_app
from pymongo import ASCENDING

from app.access import addresses, sealing
from app.errors import Invalid
from app.model.accounts import acts_as_owner
from app.sources import git
from app.storage.database import now
from app.storage.resource_store import ResourceStore

DELIVERIES_KEPT = 100


class Sources(ResourceStore):
    collection = "sources"
    noun = "source"
    filters = {"owner": "owner"}

    def create_indexes(self):
        """When each is synced next (the schedule's query)."""
        self.coll().create_index([("nextSyncAt", ASCENDING)], name="next_sync", sparse=True)
        super().create_indexes()

    def apply_rules(self, changes, stored, user):
        """The URL checked under the operator's settings (a 422 before any connection), the folder
        kept inside the repository, the next scheduled sync, the credentials sealed; a new URL
        forgets the credentials given for the old one unless the same request gives them again."""
        changes = dict(changes)
        if "url" in changes:
            try:
                addresses.checked(changes["url"], current_app.config)
            except ValueError as exc:
                raise Invalid({"url": [str(exc)]}) from None
        if "path" in changes:
            try:
                changes["path"] = git.clean_path(changes["path"])
            except ValueError as exc:
                raise Invalid({"path": [str(exc)]}) from None
        if "interval" in changes:
            interval = changes["interval"]
            changes["nextSyncAt"] = now() + timedelta(seconds=interval) if interval else None
        if stored is not None and changes.get("url", stored["url"]) != stored["url"]:
            for name in sealing.SEALED:  # given for the old address: never sent to a new one
                changes.setdefault(name, None)
        return sealing.sealed(changes)

    def seen_by(self, doc, user):
        return {**super().seen_by(doc, user), "webhook": f"/sources/{doc['_id']}/webhook"}

    def can(self, doc, user):
        """Change, sync and delete it: acting as its owner."""
        owner = acts_as_owner(user, doc["owner"])
        return {"change": owner, "delete": owner}

    def take_sync(self, source_id, job_id, replacing):
        """Make `job_id` the source's sync where `replacing` still is (None: no sync; else one whose
        job ended or whose worker died); whether it did."""
        held = {"$in": [None]} if replacing is None else replacing
        started = {"job": str(job_id), "state": "running", "at": now(), "commit": None, "counts": None, "error": None}
        taken = {"$set": {"syncing": job_id, "lastSync": started}}
        return self.coll().update_one({"_id": source_id, "syncing": held}, taken).matched_count == 1

    def syncing(self, source_id):
        """The job that syncs the source now, or None."""
        doc = self.coll().find_one({"_id": source_id}, {"syncing": 1})
        return doc and doc.get("syncing")

    def synced(self, source_id, job_id, last):
        """The sync `job_id` ended: its `last` written, the source free for the next."""
        ended = {"$set": {"syncing": None, "lastSync": {"job": str(job_id), **last}}}
        self.coll().update_one({"_id": source_id, "syncing": job_id}, ended)

    def delivered(self, source_id, delivery):
        """Whether the webhook delivery `delivery` is new (then it is remembered)."""
        kept = {"$push": {"deliveries": {"$each": [delivery], "$slice": -DELIVERIES_KEPT}}}
        return self.coll().update_one({"_id": source_id, "deliveries": {"$ne": delivery}}, kept).matched_count == 1

    def due(self, moment, most):
        """Up to `most` sources whose scheduled sync is due at `moment`."""
        return list(self.coll().find({"nextSyncAt": {"$lte": moment}}).sort("nextSyncAt", ASCENDING).limit(most))

    def scheduled(self, doc, moment):
        """Move the due source's next sync on by its interval; whether this caller did (and so
        starts the sync), not another worker."""
        after = moment + timedelta(seconds=doc["interval"])
        moved = self.coll().update_one(
            {"_id": doc["_id"], "nextSyncAt": doc["nextSyncAt"]}, {"$set": {"nextSyncAt": after}}
        )
        return moved.matched_count == 1


store = Sources()
