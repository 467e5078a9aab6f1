"""Kept versions of blueprints, one document per (blueprint, rev). The version a write replaces is
kept (an idempotent upsert) before the write, which is conditional on that version's `rev`: no
change loses its predecessor, without transactions. The newest REVISIONS_KEPT are kept, and
older ones that instances were rendered at (an instance upgrades or rolls back from them); all go
with their blueprint."""

import contextlib
import difflib

from flask import current_app
from pymongo import ASCENDING, DESCENDING
from pymongo.errors import DuplicateKeyError

from app.blueprints.schemas import WRITABLE
from app.errors import NotFound
from app.storage.database import get_db
from app.storage.list_keys import without_keys

NOT_KEPT = ("_id", "starredBy")  # the id is the blueprint's; stars are not part of a version (nor keys)
PRUNE_SLACK = 16  # older kept versions a prune also looks for (left by a crash between writes)


class Revisions:
    """The `revisions` collection: every version of a blueprint a change replaced."""

    # Readings of other resources, given by app/joins/across.py `connect` (no resource imports another)
    pinned = None  # (blueprint id, rev) -> whether an instance is, or keeps a release, rendered at it

    def coll(self):
        return get_db().revisions

    def create_indexes(self):
        self.coll().create_index([("blueprint", ASCENDING), ("rev", DESCENDING)], unique=True, name="blueprint_rev")

    def keep(self, stored):
        """Keep the version a write is about to replace, and let the oldest beyond the limit go."""
        version = {key: value for key, value in without_keys(stored).items() if key not in NOT_KEPT}
        with contextlib.suppress(DuplicateKeyError):  # a concurrent writer kept it first
            self.coll().update_one(
                {"blueprint": stored["_id"], "rev": stored["rev"]}, {"$setOnInsert": {"version": version}}, upsert=True
            )
        oldest_kept = stored["rev"] + 2 - current_app.config["REVISIONS_KEPT"]  # the new current is rev + 1
        if oldest_kept > 1:
            pruned = range(max(oldest_kept - 1 - PRUNE_SLACK, 1), oldest_kept)
            used = [rev for rev in pruned if self.pinned(stored["_id"], rev)]
            self.coll().delete_many(
                {"blueprint": stored["_id"], "rev": {"$gte": pruned.start, "$lt": pruned.stop, "$nin": used}}
            )

    def forget(self, blueprint_id):
        self.coll().delete_many({"blueprint": blueprint_id})

    def version(self, current, rev):
        """Version `rev` of the blueprint `current` (the current one is its own latest version)."""
        if rev == current["rev"]:
            return current
        record = self.coll().find_one({"blueprint": current["_id"], "rev": rev}) if 1 <= rev < current["rev"] else None
        if record is None:
            raise NotFound(f"No kept version {rev} of this blueprint.")
        return _as_blueprint(current, record)

    def page(self, current, limit, below=None):
        """Up to `limit` versions newest first, below rev `below` (the current one first when it is
        None), and the rev the next page goes below, or None."""
        top = current["rev"] + 1 if below is None else min(below, current["rev"] + 1)
        items = [current] if top > current["rev"] else []
        top = min(top, current["rev"])
        wanted = limit + 1 - len(items)
        if wanted > 0 and top > 1:
            found = self.coll().find({"blueprint": current["_id"], "rev": {"$gte": max(top - wanted, 1), "$lt": top}})
            items += [_as_blueprint(current, record) for record in found.sort("rev", DESCENDING)]
        more = len(items) > limit
        items = items[:limit]
        return items, items[-1]["rev"] if more else None


store = Revisions()


def _as_blueprint(current, record):
    return {**record["version"], "_id": current["_id"], "starredBy": current.get("starredBy", [])}


def diff(older, newer):
    """The fields that differ between two versions, and a unified diff of their `yml`, exact to the
    byte: line endings are kept, and a last line without a newline is marked as git marks it."""
    before, after = writable(older), writable(newer)
    fields = {
        name: {"from": before[name], "to": after[name]}
        for name in WRITABLE
        if name != "yml" and before[name] != after[name]
    }
    lines = difflib.unified_diff(
        (older.get("yml") or "").splitlines(keepends=True),
        (newer.get("yml") or "").splitlines(keepends=True),
        f"rev {older['rev']}",
        f"rev {newer['rev']}",
    )
    return {"from": older["rev"], "to": newer["rev"], "fields": fields, "yml": "".join(map(_terminated, lines))}


def _terminated(line):
    return line if line.endswith(("\n", "\r")) else f"{line}\n\\ No newline at end of file\n"


def writable(version):
    """What restoring `version` writes: every writable field, as that version had it."""
    defaults = {"entitlementType": "OWNER", "entitledUsers": [], "entitledTeams": [], "inactive": False, "tags": []}
    return {name: version.get(name, defaults.get(name)) for name in WRITABLE}
