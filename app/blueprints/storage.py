"""Blueprints in MongoDB: who may read them (owner, everyone, or a named list), the rule of
`entitledUsers` (existing users, only with CUSTOM), `requirements`, computed from the
definition on every write that changes it, and stars (the users in `starredBy`).

Blueprints stored before `requirements` existed get them when read (`definitions.requirements_of`)
and keep them from their next write on: no start-up migration, no downtime."""

from pymongo import ASCENDING, DESCENDING

from app import definitions, pagination
from app.auth import is_admin
from app.errors import Invalid
from app.resource_store import ResourceStore
from app.revisions import storage as history
from app.users import storage as users


def entitlement_changes(changes, stored=None):
    """`entitledUsers` only with CUSTOM; leaving CUSTOM clears it. Names are kept once, in order."""
    kind = changes.get("entitlementType", (stored or {}).get("entitlementType", "OWNER"))
    sent = changes.get("entitledUsers")
    if kind != "CUSTOM":
        if sent:
            raise Invalid({"entitledUsers": ["Allowed only with entitlementType CUSTOM."]})
        changes["entitledUsers"] = []
    elif sent is not None or stored is None:
        changes["entitledUsers"] = list(dict.fromkeys(sent or []))
    return changes


def _both(first, second):
    return second if first is None else lambda doc: first(doc) and second(doc)


class Blueprints(ResourceStore):
    collection = "blueprints"
    exact_filters = ("name", "owner", "blueprintType", "entitlementType", "inactive")
    indexed_filters = ("owner", "entitlementType", "tags")

    def create_indexes(self):
        self.coll().create_index([("owner", ASCENDING), ("_id", DESCENDING)], name="owner_newest")
        self.coll().create_index([("entitlementType", ASCENDING), ("_id", DESCENDING)], name="entitlement_newest")
        self.coll().create_index([("entitledUsers", ASCENDING), ("_id", DESCENDING)], name="entitled_newest")
        # sparse: a blueprint without tags or stars (most of them) costs its insert no entry
        self.coll().create_index([("tags", ASCENDING), ("_id", DESCENDING)], name="tags_newest", sparse=True)
        self.coll().create_index([("starredBy", ASCENDING), ("_id", DESCENDING)], name="starred_newest", sparse=True)
        pagination.prepare(self.coll())

    def readable(self, user):
        if is_admin(user):
            return [{}]
        # entitledUsers is empty unless the blueprint is CUSTOM (entitlement_changes)
        return [{"owner": user["username"]}, {"entitlementType": "PUBLIC"}, {"entitledUsers": user["username"]}]

    def list(self, user, args, also=None, branches=None):
        """`starred=true` reads the caller's stars (their own index), keeping what they may
        still read; `starred=false` leaves them out."""
        name = user["username"]
        if args.get("starred") is True:
            return super().list(user, args, _both(also, lambda doc: self.can_read(doc, user)), [{"starredBy": name}])
        if args.get("starred") is False:
            also = _both(also, lambda doc: name not in doc.get("starredBy", ()))
        return super().list(user, args, also)

    def star(self, id_text, user, starred):
        """Star (or unstar) a blueprint the user may read; one atomic update of its document, so
        the count is always the number of users in `starredBy`."""
        doc = self.get(id_text, user)
        self.coll().update_one(
            {"_id": doc["_id"]}, {"$addToSet" if starred else "$pull": {"starredBy": user["username"]}}
        )

    def before_write(self, stored, changes):
        """The version a change replaces is kept first (app/revisions/storage.py)."""
        if stored is not None:
            history.keep(stored)

    def after_delete(self, doc):
        history.forget(doc["_id"])

    def apply_rules(self, changes, stored):
        changes = entitlement_changes(changes, stored)
        if stored is None and not changes.get("tags"):
            changes.pop("tags", None)  # stored only when there are some (the tag index is sparse)
        if stored is None or {"yml", "blueprintType", "parameters"} & set(changes):
            merged = {**(stored or {}), **changes}
            changes["requirements"] = definitions.requirements(
                merged.get("blueprintType"), merged.get("yml"), merged.get("parameters")
            )
        elif "requirements" not in stored:  # stored before they existed; its definition unchanged
            changes["requirements"] = definitions.requirements_of(stored)
        named = changes.get("entitledUsers")
        unknown = users.missing(named) if named else []  # no query when there is nobody to look up
        if unknown:
            raise Invalid({"entitledUsers": [f"No such user: {', '.join(unknown)}."]})
        return changes


store = Blueprints()
