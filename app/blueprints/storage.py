from pymongo import ASCENDING, DESCENDING

from app import errors
from app.auth import is_admin
from app.blueprints.schemas import apply_entitlement_rule
from app.store import Store
from app.users import storage as users


class Blueprints(Store):
    collection = "blueprints"
    exact_filters = ("name", "owner", "blueprintType", "entitlementType", "inactive")

    def create_indexes(self):
        self.coll().create_index([("owner", ASCENDING), ("_id", DESCENDING)], name="owner_newest")
        self.coll().create_index([("entitlementType", ASCENDING), ("_id", DESCENDING)],
                                 name="entitlement_newest")
        self.coll().create_index([("entitledUsers", ASCENDING), ("_id", DESCENDING)],
                                 name="entitled_newest")

    def readable(self, user):
        if is_admin(user):
            return {}
        return {"$or": [{"owner": user["username"]}, {"entitlementType": "PUBLIC"},
                        {"entitlementType": "CUSTOM", "entitledUsers": user["username"]}]}

    def create(self, fields, user, id=None):
        return super().create(self.prepare(fields, None), user, id)

    def prepare(self, changes, stored):
        changes = apply_entitlement_rule(changes, stored)
        named = changes.get("entitledUsers")
        unknown = users.missing(named) if named else []  # no query when there is nobody to look up
        if unknown:
            raise errors.Invalid({"entitledUsers": [f"No such user: {', '.join(unknown)}."]})
        return changes


store = Blueprints()
