from pymongo import ASCENDING, DESCENDING

from app import errors
from app.auth import is_admin
from app.blueprints.schemas import apply_entitlement_rule
from app.store import Store
from app.users import storage as users


class Blueprints(Store):
    collection = "blueprints"

    @staticmethod
    def create_indexes(db):
        db.blueprints.create_index([("owner", ASCENDING), ("_id", DESCENDING)], name="owner_newest")
        db.blueprints.create_index([("entitlementType", ASCENDING), ("_id", DESCENDING)],
                                   name="entitlement_newest")
        db.blueprints.create_index([("entitledUsers", ASCENDING), ("_id", DESCENDING)],
                                   name="entitled_newest")

    def readable(self, user):
        if is_admin(user):
            return {}
        return {"$or": [{"owner": user["username"]}, {"entitlementType": "PUBLIC"},
                        {"entitlementType": "CUSTOM", "entitledUsers": user["username"]}]}

    def create(self, fields, user):
        apply_entitlement_rule(fields)
        self._check_users_exist(fields["entitledUsers"])
        return self.insert(fields, user)

    @staticmethod
    def _check_users_exist(names):
        unknown = users.missing(names) if names else []
        if unknown:
            raise errors.Invalid({"entitledUsers": [f"No such user: {', '.join(unknown)}."]})


store = Blueprints()
