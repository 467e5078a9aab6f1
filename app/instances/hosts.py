"""The hosts (with their paths) live instances answer on, one document each (`_id` `host/path`,
the instance holding it): a host is taken by one insert, so two instances never route the same
host and path, whichever teams own them. A hold a request left when it died before writing its
instance is taken over once that instance is known not to exist and a lease has passed."""

from datetime import timedelta

from pymongo.errors import DuplicateKeyError

from app.errors import Conflict
from app.storage.database import collection, now

TAKEN = "The host {!r} is routed by another instance: choose another (its routes' host)."


def held(routes):
    """The `host/path` keys of routes that name a host (one that answers on any host holds none)."""
    return sorted({f"{route['host']}{route['path']}" for route in routes if route.get("host")})


class Hosts:
    """The `hosts` collection: which instance answers on each host and path."""

    def coll(self):
        return collection("hosts")

    def take(self, keys, instance_id, stored, lease):
        """Hold each of `keys` for `instance_id`, taking over a hold whose instance `stored` (a
        lookup by id) does not find once `lease` seconds have passed; a 409 for one another live
        instance holds (naming nobody), the keys taken here let go first."""
        taken = []
        for key in keys:
            try:
                self.coll().insert_one({"_id": key, "instance": str(instance_id), "at": now()})
            except DuplicateKeyError:
                if not self._taken_over(key, instance_id, stored, lease):
                    self.free(taken, instance_id)
                    raise Conflict(TAKEN.format(key.partition("/")[0])) from None
            taken.append(key)

    def _taken_over(self, key, instance_id, stored, lease):
        """Whether `key`, which an insert found held, is this instance's now: its own hold (a
        retry), freed meanwhile, or left by an instance that was never written."""
        doc = self.coll().find_one({"_id": key})
        if doc is None:
            try:
                self.coll().insert_one({"_id": key, "instance": str(instance_id), "at": now()})
            except DuplicateKeyError:
                return False
            return True
        if doc["instance"] == str(instance_id):
            return True
        if stored(doc["instance"]) is not None or doc["at"] > now() - timedelta(seconds=lease):
            return False
        written = self.coll().update_one(
            {"_id": key, "instance": doc["instance"]}, {"$set": {"instance": str(instance_id), "at": now()}}
        )
        return written.modified_count == 1

    def taken(self, keys, instance_id=None):
        """The first host of `keys` another instance than `instance_id` holds, else None (a dry
        run's question)."""
        doc = self.coll().find_one({"_id": {"$in": list(keys)}, "instance": {"$ne": str(instance_id)}})
        return None if doc is None else doc["_id"].partition("/")[0]

    def free(self, keys, instance_id):
        """Let `instance_id` go of `keys`, those it holds."""
        if keys:
            self.coll().delete_many({"_id": {"$in": list(keys)}, "instance": str(instance_id)})


store = Hosts()
