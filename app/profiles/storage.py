"""Profiles in MongoDB: read by their owner, admins and the users and teams they are shared with
(`entitledUsers`, `entitledTeams`); a container default never above the container maximum. The single
default per owner is held by the database itself: a partial
unique index on owner among defaults, and an atomic demotion of the old default before the new
one is written. A write that loses that race to another default demotes again and retries, so
it still succeeds.

A profile's `usage` and the ledger of the changes of it under way (`ledger.<instance id>`, one per
instance at a time) are kept in a document of their own (ledgers.py) and read with it: an
admission reserves, writes its instance, then settles or takes back (app/joins/admission.py).
An entry older than twice REQUEST_TIMEOUT belongs to a request that died (gunicorn kills one
running past it); `settled` concludes it by what the instance store says of its instance, before
every admission and every read of the profile."""

from bson import ObjectId
from flask import current_app
from pymongo import ASCENDING

from app.config import request_lease
from app.definitions import fit
from app.errors import Conflict, Forbidden, Invalid, Problem
from app.model import quantities
from app.model.accounts import is_admin, shared_with
from app.profiles import usage
from app.profiles.ledgers import Finished
from app.profiles.ledgers import store as ledgers
from app.storage import list_keys
from app.storage.database import now
from app.storage.resource_store import REMOVED, ResourceStore


class Profiles(ResourceStore):
    collection = "profiles"
    noun = "profile"
    filters = {"name": "name", "owner": "owner", "defaultProfile": "defaultProfile"}
    retired_indexes = ("owner_newest", "newest", "one_per_source")
    finished = Finished()
    # Readings of other resources, given by app/joins/across.py `connect` (no resource imports another)
    rev_of = None  # (instance id) -> its `rev`, None when it is not there
    check_entitled = None  # (changes, caller) -> a 422 where a user or team it names does not exist
    check_environments = None  # (names) -> a 422 where an environment it names does not exist

    def create_indexes(self):
        """One default per owner; one profile per owner, import source and key."""
        self.create_source_index()
        self.coll().create_index(
            [("owner", ASCENDING)],
            unique=True,
            name="one_default_per_owner",
            partialFilterExpression={"defaultProfile": True},
        )
        self.coll().create_index([("cluster.gateway", ASCENDING)], name="gateways", sparse=True)
        self.coll().create_index([("environments", ASCENDING)], name="environments", sparse=True)
        super().create_indexes()

    def scopes(self, doc):
        """Its owner and admins, and the users and teams it is shared with."""
        return [list_keys.ADMINS, doc["owner"]], shared_with(doc)

    def readable(self, id_text, user):
        """A profile the user may read, its usage settled where a crashed request left it unsettled."""
        return self.settled(super().readable(id_text, user))

    def create(self, fields, user, id=None, dry_run=False):
        """A profile, answered with its usage (a new one's: nothing)."""
        made = super().create(fields, user, id, dry_run)
        return made if "usage" in made else {**made, "usage": dict(usage.ZERO)}

    def gateway_in(self, namespace):
        """Whether a profile's Gateway (`namespace/name`) is in `namespace`; an index serves the range."""
        where = {"cluster.gateway": {"$gte": f"{namespace}/", "$lt": f"{namespace}0"}}  # "0" follows "/"
        return self.coll().find_one(where, {"_id": 1}) is not None

    def owned_by(self, owner):
        """Every profile of `owner` with its usage (its keys' index serves the owner: every profile
        is the admins' to read)."""
        found = self.coll().find({list_keys.FIELD: list_keys.key(list_keys.ADMINS, f"o:{owner}")})
        return self.with_parts(list(found))

    def environments_read_by(self, user):
        """The names of the environments that the profiles `user` reads name (their keys' index)."""
        return self.coll().distinct("environments", {list_keys.FIELD: {"$in": self.caller_scopes(user)}})

    def naming(self, environment):
        """The name of a profile whose `environments` names `environment`, or None (an index serves it)."""
        found = self.coll().find_one({"environments": environment}, {"name": 1})
        return found and found["name"]

    def prices_of(self, ids):
        """{id: the profile's own prices or None} of the profiles whose ids (as text) are `ids`."""
        found = self.coll().find({"_id": {"$in": [ObjectId(one) for one in ids]}}, {"prices": 1})
        return {str(doc["_id"]): doc.get("prices") for doc in found}

    def observed(self, environment, sums):
        """Record each profile's usage observed in `environment` ({profile id as text: amounts})."""
        ledgers.observed(environment, {ObjectId(profile_id): amounts for profile_id, amounts in sums.items()})

    def with_usage(self, _id):
        """The profile whose id is `_id` with its usage, settled, or None, whoever asks: the one an
        admission spends from."""
        found = self.whole(_id)
        return None if found is None else self.settled(found)

    def differing(self, stored, changes):
        """`changes` less the caps and per-container amounts that are the same amount written
        otherwise (`512` MiB and `512Mi`, `2.5` and `2500m`)."""
        before, after = quantities.limits(stored), quantities.limits({**stored, **changes})
        keys = {field: key for field, (key, _) in quantities.CAPS.items()}

        def same(field):
            key = keys.get(field, field)
            return key in before and before[key] == after[key]

        return {field: value for field, value in changes.items() if not same(field)}

    def whole(self, _id):
        """The profile with its usage and ledger, read in one round trip (an admission's first)."""
        found = next(self.coll().aggregate([{"$match": {"_id": _id}}, ledgers.JOINED]), None)
        return None if found is None else ledgers.joined(found)

    def with_parts(self, docs):
        """The profiles with their `usage` and `ledger` (and `closing` while a delete is under
        way), read in one query."""
        parts = ledgers.of([doc["_id"] for doc in docs])
        return [{**doc, **parts[doc["_id"]]} for doc in docs]

    def delete(self, id_text, user, if_match=None):
        """Close its ledger, on the condition that no instance spends from it (its usage counts
        them, in-flight ones included), so that no admission can reserve while it goes or after;
        then delete it, or reopen the ledger when the delete is refused. A delete that dies in
        between leaves the ledger closed until `settled` reopens it, once its lease has passed."""
        doc = self.checked(id_text, user, if_match)
        closing = ledgers.close(doc["_id"])
        if closing is None:
            count = self.readable(id_text, user)["usage"]["instances"]
            if count == 0:  # closed by another delete, under way or died less than a lease ago
                raise Conflict("Another delete of this profile is under way: try again.")
            raise Conflict(
                f"{count} instance{'s' if count != 1 else ''} spend{'s' if count == 1 else ''} from this "
                "profile: delete them first."
            )
        try:
            super().delete(id_text, user, if_match)
        except Problem:
            ledgers.reopen(doc["_id"], closing)
            raise

    def keep_apart(self, doc):
        """A profile stored with its usage and ledger in its own document: those moved to its
        ledger (as they are now: a retry after the profile changed writes them again), then the
        changes that remove them (a migration's, `reshape`)."""
        if "usage" not in doc and "ledger" not in doc:  # stored before usage was kept, or moved already
            return {}
        ledgers.keep(doc["_id"], doc.get("usage", usage.ZERO), doc.get("ledger") or {})
        return {"usage": REMOVED, "ledger": REMOVED}

    def apply_rules(self, changes, stored, user):
        """`entitledUsers` and `entitledTeams` kept once each, in order, and existing; no default over the maximum (a
        LimitRange with one is refused too); only admins loosen what a cluster holds its
        instances to (`podSecurity: privileged`, `allowKinds` more than it has) or set what is the
        operator's (`prices`, `cluster.gateway`, which enters every tenant's NetworkPolicies, and
        `cluster.proxy.network`, which Docker hosts share)."""
        if not is_admin(user):
            _admins_alone(changes, stored or {})
        for field in ("allowKinds", "entitledUsers", "entitledTeams", "environments"):
            if field in changes:
                changes[field] = list(dict.fromkeys(changes[field] or []))
        self.check_entitled(changes, user)
        if changes.get("environments"):
            self.check_environments(changes["environments"])
        if {"containerDefaults", "containerMax"} & set(changes):
            merged = quantities.limits({**(stored or {}), **changes})
            over = [
                member
                for member, (key, _) in quantities.PER_CONTAINER.items()
                if None not in (merged["containerDefaults"][key], merged["containerMax"][key])
                and merged["containerDefaults"][key] > merged["containerMax"][key]
            ]
            if over:
                raise Invalid(
                    {f"containerDefaults.{member}": ["Must not be more than containerMax."] for member in over}
                )
        return changes

    def before_write(self, stored, changes):
        """A profile becoming the default demotes its owner's current default first (found through
        the partial index; the profile itself is not the default yet), with the keys it is now
        found by. A demotion that loses a race leaves the other default in place, and the write
        that needed it fails on the unique index and comes back here."""
        if not changes.get("defaultProfile") or (stored or {}).get("defaultProfile"):
            return
        current = self._default((stored or changes)["owner"])
        if current is None:
            return
        demoted = self.rekeyed(current, {"defaultProfile": False, "updatedAt": now()})
        self.coll().update_one({"_id": current["_id"], "rev": current["rev"]}, {"$set": demoted, "$inc": {"rev": 1}})

    def default_of(self, user):
        """The caller's own default profile (an admin's too: never another owner's); a 422 naming
        `profile` when there is none, since the caller then has to name one."""
        doc = self._default(user["username"])
        if doc is None:
            raise Invalid({"profile": ["You have no default profile: name one."]})
        return self.settled(self.with_parts([doc])[0])

    def _default(self, owner):
        """`owner`'s default profile or None (the partial index serves it)."""
        return self.coll().find_one({"owner": owner, "defaultProfile": True})

    # The ledger of usage

    def reserve(self, profile, instance_id, delta, entry):
        """Add what `delta` grows to the profile's usage and record `entry` (the operation) in its
        ledger, if no other operation of this instance is under way, no delete has closed it, and
        for each resource the profile caps that `delta` grows, the room is there (`usage <= cap -
        change`). The entry as recorded, or None. A cap changed since `profile` was read does not
        refuse it: the admission counts as having come first, and a cap below the usage is allowed.
        The creates this process settled on the profile go with it; a create's entry left in the
        way of a change of its instance is concluded first (the change read the instance: it exists)."""
        earlier = profile["ledger"].get(instance_id)
        if earlier is not None and earlier["op"] == "create" and entry["op"] != "create":
            ledgers.conclude(profile["_id"], instance_id, earlier, {})
        limits = quantities.limits(profile)
        bounds = {  # a requirement's amounts are named as `limits` names the caps
            key: fit.room(delta[key], limits[key])
            for key in usage.COUNTED
            if delta[key] > 0 and limits[key] is not None
        }
        recorded = {**entry, "delta": delta, "pending": usage.freed(delta), "at": now()}
        done = self.finished.take(profile["_id"])
        done.pop(instance_id, None)
        if ledgers.reserve(profile["_id"], instance_id, recorded, usage.grown(delta), bounds, done):
            return recorded
        for key, at in done.items():  # one of them may have been concluded meanwhile
            ledgers.conclude(profile["_id"], key, {"at": at}, {})
        return None

    def settle(self, profile_id, instance_id, entry):
        """The operation took place: what it frees leaves usage, and its entry goes; a create's
        (it frees nothing) with this process's next reservation on the profile (`finished`)."""
        if entry["op"] == "create":
            self.finished.add(profile_id, instance_id, entry["at"])
        else:
            ledgers.conclude(profile_id, instance_id, entry, entry.get("pending", {}))

    def take_back(self, profile_id, instance_id, entry):
        """The operation did not take place: what its reservation added leaves usage, and its entry
        goes."""
        pending = entry.get("pending", {})
        added = {key: pending.get(key, 0) - value for key, value in entry["delta"].items()}
        ledgers.conclude(profile_id, instance_id, entry, added)

    def settled(self, profile):
        """`profile` (read with its parts; None: None) as it is once each ledger entry older than
        twice REQUEST_TIMEOUT is concluded by what the instance store says (settled where its
        change took place, taken back where it did not), and a ledger a delete closed that long
        ago is open again (the delete died: the profile is here)."""
        oldest = now() - request_lease(current_app.config)
        stale = [(key, entry) for key, entry in ((profile or {}).get("ledger") or {}).items() if entry["at"] < oldest]
        closing = (profile or {}).get("closing")
        if not stale and (closing is None or closing >= oldest):
            return profile
        for instance_id, entry in stale:
            if usage.happened(entry, self.rev_of(ObjectId(instance_id))):
                ledgers.conclude(profile["_id"], instance_id, entry, entry.get("pending", {}))
            else:
                self.take_back(profile["_id"], instance_id, entry)
        if closing is not None and closing < oldest:
            ledgers.reopen(profile["_id"], closing)
        return self.with_usage(profile["_id"])


store = Profiles()


def _admins_alone(changes, stored):
    """A 403 for a change only an admin may make: a field of ADMINS_ALONE sent with another value
    than the one stored (a whole profile sent back as read passes)."""
    if changes.get("podSecurity") == "privileged" and stored.get("podSecurity") != "privileged":
        raise Forbidden("Only admins set `podSecurity: privileged`.")
    if set(changes.get("allowKinds") or ()) - set(stored.get("allowKinds") or ()):
        raise Forbidden("Only admins add to `allowKinds`.")
    if "prices" in changes and changes["prices"] != stored.get("prices"):
        raise Forbidden("Only admins set a profile's `prices`.")
    cluster, kept = changes.get("cluster") or {}, stored.get("cluster") or {}
    if "cluster" in changes and cluster.get("gateway") != kept.get("gateway"):
        raise Forbidden("Only admins set a profile's `cluster.gateway`.")
    if "cluster" in changes and (cluster.get("proxy") or {}).get("network") != (kept.get("proxy") or {}).get("network"):
        raise Forbidden("Only admins set a profile's `cluster.proxy.network`: it joins other projects' networks.")
    if "environments" in changes and list(changes["environments"] or ()) != list(stored.get("environments") or ()):
        raise Forbidden("Only admins set a profile's `environments`.")
