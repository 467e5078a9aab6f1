"""Blueprints in MongoDB: who may read them (owner, everyone, or a named list), and the rule of
`entitledUsers`, which names existing users and only with CUSTOM."""

from pymongo import ASCENDING, DESCENDING

from app import pagination
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
        named = changes.get("entitledUsers")
        unknown = users.missing(named) if named else []  # no query when there is nobody to look up
        if unknown:
            raise Invalid({"entitledUsers": [f"No such user: {', '.join(unknown)}."]})
        return changes


store = Blueprints()
