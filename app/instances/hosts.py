"""The hosts (with their paths) live instances answer on, one document each (`_id` `host/path`,
the instance holding it): a host is taken by one insert, so two instances never route the same
host and path, whichever teams own them. A hold covers every path under its prefix (a proxy
ranks a longer prefix first, so another's `/login` under a held `/` would take its traffic): once
inserted, a hold that overlaps another instance's (a prefix of it, or under it) is let go with a
409, so of two racing holds at least one is refused and never both kept. A hold a request left
when it died before writing its instance is taken over once that instance is known not to exist
and a lease has passed."""

from pymongo.errors import DuplicateKeyError

from app.errors import Conflict
from app.storage.database import collection, now

TAKEN = "The host {!r} is routed by another instance: choose another (its routes' host)."
PORT = "port:"  # a host port an engine publishes: `port:ENVIRONMENT:PORT/PROTOCOL`
PORT_TAKEN = "`ports`: the host port {} of the environment {!r} is published by another instance: choose another."


def held(routes):
    """The `host/path` keys of routes that name a host (one that answers on any host holds none)."""
    return sorted({f"{route['host']}{route['path']}" for route in routes if route.get("host")})


def ports_held(environment, published):
    """The keys of the host ports `published` ((port, protocol) pairs) in `environment`: a port is
    held per environment whatever address it is bound to, as two bindings of one port, one of them
    on every address, cannot both start."""
    return sorted({f"{PORT}{environment}:{port}/{protocol}" for port, protocol in published})


def refused(key):
    """The 409 of `key`, held by another instance."""
    if key.startswith(PORT):
        environment, _, port = key.removeprefix(PORT).partition(":")
        return Conflict(PORT_TAKEN.format(port, environment))
    return Conflict(TAKEN.format(key.partition("/")[0]))


class Hosts:
    """The `hosts` collection: which instance answers on each host and path."""

    def coll(self):
        return collection("hosts")

    def take(self, keys, instance_id, stored, lease):
        """Hold each of `keys` for `instance_id`, taking over a hold whose instance `stored` (a
        lookup by id) does not find once `lease` (a timedelta) has passed; a 409 for one another live
        instance holds or overlaps (naming nobody), the keys taken here let go first."""
        taken = []
        for key in keys:
            try:
                self.coll().insert_one({"_id": key, "instance": str(instance_id), "at": now()})
            except DuplicateKeyError:
                if not self._taken_over(key, instance_id, stored, lease):
                    self.free(taken, instance_id)
                    raise refused(key) from None
            taken.append(key)
            for doc in self._overlapping(key, instance_id):
                if self._live(doc, stored, lease):
                    self.free(taken, instance_id)
                    raise refused(key)
                self.coll().delete_one({"_id": doc["_id"], "instance": doc["instance"]})  # left by no instance

    def _overlapping(self, key, instance_id):
        """Other instances' holds on the host of `key` at a prefix of its path or under it (two
        flat lookups by id, each served by the `_id` index)."""
        host, _, path = key.partition("/")
        above = [f"{host}/{path[:end]}" for end in range(len(path))]
        found = list(self.coll().find({"_id": {"$in": above}}))
        found += self.coll().find({"_id": {"$gt": key, "$lt": key + "\U0010ffff"}})
        return [doc for doc in found if doc["instance"] != str(instance_id)]

    @staticmethod
    def _live(doc, stored, lease):
        """Whether a hold is its instance's, or may still become it (its lease has not passed)."""
        return stored(doc["instance"]) is not None or doc["at"] > now() - lease

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
        if self._live(doc, stored, lease):
            return False
        written = self.coll().update_one(
            {"_id": key, "instance": doc["instance"]}, {"$set": {"instance": str(instance_id), "at": now()}}
        )
        return written.modified_count == 1

    def taken(self, keys, instance_id=None):
        """The first key of `keys` another instance than `instance_id` holds or overlaps, else
        None (a dry run's question)."""
        for key in keys:
            if self.coll().find_one({"_id": key, "instance": {"$ne": str(instance_id)}}) or self._overlapping(
                key, instance_id
            ):
                return key
        return None

    def held_for(self, key, instance_id):
        """Record an existing instance's hold of `key` (a migration), unless another holds it;
        whether it does."""
        try:
            self.coll().insert_one({"_id": key, "instance": str(instance_id), "at": now()})
        except DuplicateKeyError:
            return (self.coll().find_one({"_id": key}) or {}).get("instance") == str(instance_id)
        return True

    def free(self, keys, instance_id):
        """Let `instance_id` go of `keys`, those it holds."""
        if keys:
            self.coll().delete_many({"_id": {"$in": list(keys)}, "instance": str(instance_id)})


store = Hosts()
