"""The Kubernetes namespaces instances hold, one document each (`_id` the name): its owner, and the
instance holding it now (null once that instance is deleted). A namespace is taken by one
conditional upsert, so two instances never hold one, and a freed one waits for its owner (a user,
or a team) until an admin releases it: another tenant could otherwise take it and read what the
cluster still keeps there (claims, secrets)."""

from flask import current_app
from pymongo.errors import DuplicateKeyError

from app.definitions import tenancy
from app.errors import Conflict, Invalid, NotFound
from app.storage.database import collection, now

TAKEN = "The namespace {!r} is taken: choose another (`namespace`)."


class Namespaces:
    """The `namespaces` collection: who owns each namespace an instance ever held, and which instance holds it."""

    def coll(self):
        return collection("namespaces")

    def take(self, namespace, owner, instance_id):
        """Hold `namespace` for `instance_id` of `owner`: free, or freed by an instance of the same
        owner (a 409 otherwise, naming nobody)."""
        try:
            self.coll().update_one(
                {"_id": namespace, "owner": owner, "instance": None},
                {"$set": {"instance": str(instance_id), "at": now()}},
                upsert=True,
            )
        except DuplicateKeyError:
            if (self.holder(namespace) or (None,))[0] != str(instance_id):  # not a retry of this instance's
                raise Conflict(TAKEN.format(namespace)) from None

    def free_for(self, namespace, owner):
        """Whether `owner` may take `namespace` now (a dry run's question)."""
        doc = self.coll().find_one({"_id": namespace})
        return doc is None or (doc["instance"] is None and doc["owner"] == owner)

    def holder(self, namespace):
        """(the instance holding it, when it was taken), or None when none does."""
        doc = self.coll().find_one({"_id": namespace})
        return None if doc is None or doc["instance"] is None else (doc["instance"], doc["at"])

    def free(self, namespace, instance_id):
        """Let `instance_id` go of `namespace` (its owner keeps it), if it holds it."""
        self.coll().update_one({"_id": namespace, "instance": str(instance_id)}, {"$set": {"instance": None}})

    def free_stale(self, namespace, instance_id, lease):
        """Free a hold that a request which died before writing its instance left, once `lease` has
        passed since it was taken; whether it did."""
        written = self.coll().update_one(
            {"_id": namespace, "instance": str(instance_id), "at": {"$lt": now() - lease}},
            {"$set": {"instance": None}},
        )
        return written.modified_count == 1

    def owned_by(self, owner):
        """A namespace held for `owner` (by one of its instances, or waiting for it), or None."""
        doc = self.coll().find_one({"owner": owner}, {"_id": 1})
        return None if doc is None else doc["_id"]

    def held_for(self, namespace, owner, instance_id):
        """Record an existing instance's hold (a migration), unless another holds it; whether it does."""
        try:
            self.take(namespace, owner, instance_id)
        except Conflict:
            return False
        return True

    def release(self, namespace):
        """An admin's release of a freed namespace: anyone may take it then. 404 for one nobody has
        held; 409 while an instance holds it."""
        doc = self.coll().find_one({"_id": namespace})
        if doc is None:
            raise NotFound(f"No namespace {namespace[:63]!r} was held.")
        if self.coll().delete_one({"_id": namespace, "instance": None}).deleted_count != 1:
            raise Conflict("An instance holds this namespace: delete it first.")


store = Namespaces()


def refuse_reserved(namespace, gateway=False, field="namespace"):
    """A 422 naming `field` for a namespace the cluster keeps for itself (tenancy.RESERVED, the
    setting RESERVED_NAMESPACES, and the ingress controller's, INGRESS_NAMESPACE), or where a
    profile's Gateway is (`gateway`, which the caller asked the profiles)."""
    config = current_app.config
    if gateway or tenancy.reserved(namespace, (*config["RESERVED_NAMESPACES"], config["INGRESS_NAMESPACE"])):
        raise Invalid({field: [f"{namespace!r} is a namespace the cluster keeps for itself."]})
