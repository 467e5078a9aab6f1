"""Blueprints in MongoDB: who may read them (owner, everyone, or a named list), the rule of
`entitledUsers` (existing users, only with CUSTOM), and `requirements`, computed from the
definition on every write that changes it.

Blueprints stored before `requirements` existed get them when read (`definitions.requirements_of`)
and keep them from their next write on: no start-up migration, no downtime."""

from pymongo import ASCENDING, DESCENDING

from app import definitions, pagination
from app.auth import is_admin
from app.errors import Invalid
from app.resource_store import ResourceStore
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


class Blueprints(ResourceStore):
    collection = "blueprints"
    exact_filters = ("name", "owner", "blueprintType", "entitlementType", "inactive")
    indexed_filters = ("owner", "entitlementType")

    def create_indexes(self):
        self.coll().create_index([("owner", ASCENDING), ("_id", DESCENDING)], name="owner_newest")
        self.coll().create_index([("entitlementType", ASCENDING), ("_id", DESCENDING)], name="entitlement_newest")
        self.coll().create_index([("entitledUsers", ASCENDING), ("_id", DESCENDING)], name="entitled_newest")
        pagination.prepare(self.coll())

    def readable(self, user):
        if is_admin(user):
            return [{}]
        # entitledUsers is empty unless the blueprint is CUSTOM (entitlement_changes)
        return [{"owner": user["username"]}, {"entitlementType": "PUBLIC"}, {"entitledUsers": user["username"]}]

    def apply_rules(self, changes, stored):
        changes = entitlement_changes(changes, stored)
        if stored is None or "yml" in changes or "blueprintType" in changes:
            merged = {**(stored or {}), **changes}
            changes["requirements"] = definitions.requirements(
                merged.get("blueprintType"), definitions.documents(merged.get("yml"))
            )
        elif "requirements" not in stored:  # stored before they existed; its definition unchanged
            changes["requirements"] = definitions.requirements_of(stored)
        named = changes.get("entitledUsers")
        unknown = users.missing(named) if named else []  # no query when there is nobody to look up
        if unknown:
            raise Invalid({"entitledUsers": [f"No such user: {', '.join(unknown)}."]})
        return changes


store = Blueprints()
