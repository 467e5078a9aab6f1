"""Instances in MongoDB, each admitted against its profile's room and counted in its usage.

Every write that changes what an instance needs (create, upgrade, delete) goes through the
profile's ledger (app/profiles/usage.py): reserve on the profile, write the instance, settle.
`usage.repair` settles what a crashed request left, by what the instance says; it runs before
every admission and every read of a profile that finds an entry older than the lease.

An instance is read by its owner, admins and its profile's owner (who may change the profile);
its rendered definition, which holds its secrets, only by its owner and admins. It keeps every
value its render used (`kept`, generated ones included), so that it renders the same bytes again
and an upgrade renders with them."""

import difflib

from pymongo import ASCENDING
from pymongo.errors import DuplicateKeyError

from app.blueprints import fitting
from app.blueprints.history import storage as history
from app.blueprints.storage import store as blueprints
from app.definitions import parameters
from app.definitions.fit import RESOURCES
from app.errors import Conflict, Invalid, NoRoom, NotFound
from app.model import quantities
from app.model.accounts import is_admin
from app.profiles import usage
from app.profiles.storage import store as profiles
from app.storage import list_keys
from app.storage.database import now
from app.storage.resource_store import MAX_ATTEMPTS, ResourceStore, object_id


class Instances(ResourceStore):
    collection = "instances"
    noun = "instance"
    filters = {"name": "name", "owner": "owner", "profile": "profile", "blueprint": "blueprint"}

    def create_indexes(self):
        """One name per owner; the instances of a blueprint at a revision (what history keeps)."""
        self.coll().create_index([("owner", ASCENDING), ("name", ASCENDING)], unique=True, name="one_name_per_owner")
        self.coll().create_index([("blueprint", ASCENDING), ("blueprintRev", ASCENDING)], name="by_blueprint_rev")
        super().create_indexes()

    def scopes(self, doc):
        """Its owner, admins, and its profile's owner."""
        return [list_keys.ADMINS, doc["owner"]], [doc["profileOwner"]] if doc["profileOwner"] != doc["owner"] else []

    # Creating: rendered, admitted, counted

    def create(self, fields, user, id=None, dry_run=False):
        """Render the blueprint at its revision with the values and the profile's defaults, and
        admit it in the room the profile has (a 409 `quota` problem otherwise)."""
        blueprint = _readable(blueprints, fields["blueprint"], user, "blueprint")
        profile = _readable(profiles, fields["profile"], user, "profile")
        version = _version(blueprint, fields.get("blueprintRev"))
        answer = _admitted(version, fields["values"], profile)
        doc = {
            "name": fields["name"],
            "blueprint": str(blueprint["_id"]),
            "blueprintRev": version["rev"],
            "profile": str(profile["_id"]),
            "profileOwner": profile["owner"],
            "values": answer["values"],
            "kept": answer["used"],
            "requirements": answer["requirements"],
            "yml": answer["yml"],
        }
        if self.coll().find_one({"owner": user["username"], "name": doc["name"]}, {"_id": 1}):
            raise Conflict(f"You have an instance named {doc['name']!r} already.")
        return super().create(doc, user, id=id, dry_run=dry_run)

    def _insert(self, doc):
        """Reserve the room on the profile, insert, settle; a reservation for a name taken is taken
        back."""
        profile_id = object_id(doc["profile"])
        entry = _reserve(
            profiles.coll().find_one({"_id": profile_id}),
            doc["_id"],
            usage.change(doc["requirements"]),
            {"op": "create"},
        )
        try:
            super()._insert(doc)
        except DuplicateKeyError:  # surely not inserted; any other failure may have inserted it: `repair` will tell
            usage.take_back(profile_id, str(doc["_id"]), entry)
            raise Conflict(f"You have an instance named {doc['name']!r} already.") from None
        usage.settle(profile_id, str(doc["_id"]))
        return doc

    # Upgrading and deleting

    def upgrade(self, id_text, user, rev, values, if_match=None, dry_run=False):
        """Render again at `rev` (the blueprint's current one when None) with the kept values and
        those given, admit the difference; the new version and the diff of the definitions."""
        doc = self._checked(id_text, user, if_match)
        blueprint = blueprints.get(doc["blueprint"], user)
        version = _version(blueprint, rev)
        profile = profiles.coll().find_one({"_id": object_id(doc["profile"])})  # `_admitted` repairs it
        answer = _admitted(version, {**doc["kept"], **values}, profile, replacing=doc["requirements"])
        changes = {
            "blueprintRev": version["rev"],
            "values": answer["values"],
            "kept": answer["used"],
            "requirements": answer["requirements"],
            "yml": answer["yml"],
            "updatedBy": user["username"],
            "updatedAt": now(),
        }
        diff = "".join(
            difflib.unified_diff(
                doc["yml"].splitlines(keepends=True),
                answer["yml"].splitlines(keepends=True),
                f"rev {doc['blueprintRev']}",
                f"rev {version['rev']}",
            )
        )
        if dry_run:
            return {**doc, **changes, "rev": doc["rev"] + 1}, diff
        delta = usage.change(answer["requirements"], doc["requirements"])
        entry = _reserve(profile, doc["_id"], delta, {"op": "upgrade", "rev": doc["rev"] + 1})
        written = self.coll().update_one({"_id": doc["_id"], "rev": doc["rev"]}, {"$set": changes, "$inc": {"rev": 1}})
        if not written.matched_count:  # deleted or changed meanwhile
            usage.take_back(profile["_id"], str(doc["_id"]), entry)
            raise Conflict("The instance changed while it was upgraded: read it and try again.")
        usage.settle(profile["_id"], str(doc["_id"]))
        return {**doc, **changes, "rev": doc["rev"] + 1}, diff

    def delete(self, id_text, user, if_match=None):
        """Free its usage (recorded first, so that a crash carries the delete through), then go;
        on the condition that it is still the version whose requirements were given back."""
        for _ in range(MAX_ATTEMPTS):
            doc = self._checked(id_text, user, if_match)
            profile = usage.repair(profiles.coll().find_one({"_id": object_id(doc["profile"])}))
            if profile is None:  # its profile was deleted under it (it cannot be while this is counted)
                self.coll().delete_one({"_id": doc["_id"]})
                return
            entry = usage.reserve(
                profile,
                str(doc["_id"]),
                usage.change(None, doc["requirements"]),
                quantities.limits(profile),
                {"op": "delete", "rev": doc["rev"]},
            )
            if entry is None:  # another change of this instance is under way, or the caps changed
                continue
            if self.coll().delete_one({"_id": doc["_id"], "rev": doc["rev"]}).deleted_count:
                usage.settle(profile["_id"], str(doc["_id"]))
                return
            usage.take_back(profile["_id"], str(doc["_id"]), entry)  # upgraded meanwhile: decide again
        raise Conflict("Another change of this instance kept going on: try again.")

    def secrets_hidden(self, doc):
        """The `values` that hide what its blueprint's version says is secret, where an instance
        stored before generated values were secrets shows one; {} otherwise."""
        blueprint = blueprints.coll().find_one({"_id": object_id(doc["blueprint"])})
        try:
            version = _version(blueprint, doc["blueprintRev"]) if blueprint else None
        except Invalid:  # that revision is gone: nothing tells which value was generated
            version = None
        values = parameters.shown((version or {}).get("parameters") or {}, doc["values"])
        return {} if values == doc["values"] else {"values": values}

    def can_read_definition(self, doc, user):
        return is_admin(user) or doc["owner"] == user["username"]


store = Instances()


def _readable(resource_store, id_text, user, field):
    """A blueprint or profile a body names: one the caller may read, else a 422 naming the field."""
    try:
        return resource_store.get(id_text, user)
    except NotFound as exc:
        raise Invalid({field: [exc.detail]}) from None


def _version(blueprint, rev):
    """The blueprint as it was at `rev` (None: as it is)."""
    if rev is None or rev == blueprint["rev"]:
        return blueprint
    try:
        return history.version(blueprint, rev)
    except NotFound:
        raise Invalid({"rev": [f"The blueprint has no revision {rev}."]}) from None


def _admitted(version, values, profile, replacing=None):
    """The render of `version` for `profile`, if the profile has room for it (with `replacing`,
    the requirements it replaces, given back first); else a 409 naming each resource short of it."""
    profile = usage.repair(profile)
    used = profile["usage"]
    if replacing is not None:
        used = {key: used[key] - value for key, value in usage.change(replacing).items()}
    answer = fitting.render_fitted(version, values, {**profile, "usage": used})
    if answer["requirements"] is None:
        raise Invalid({"blueprint": ["Its definition is of no known type: there is nothing to count."]})
    _refuse_without_room(answer["fit"])
    return answer


def _refuse_without_room(fit):
    """A 409 naming each resource the fit has no room for: over the cap left, over the maximum per
    container, unbounded or unknown where the profile caps it."""
    short, quota = [], {}
    for name, resource in fit["resources"].items():
        capped = resource["cap"] is not None
        if capped:
            quota[name] = {key: resource[key] for key in ("required", "used", "cap", "available")}
        if resource["overMax"]:
            short.append(f"{name}: over the profile's per-container maximum ({'; '.join(resource['overMax'])})")
        elif capped and resource["verdict"] == "exceeds":
            short.append(_shortfall(name, resource["required"], resource["used"], resource["cap"]))
        elif capped and resource["verdict"] == "unbounded":
            short.append(f"{name}: a container declares none and the profile gives no container default")
        elif capped and resource["verdict"] == "unknown":
            short.append(f"{name}: not known until the variables that stand in it are set")
    if short:
        raise NoRoom("The profile has no room for it: " + "; ".join(short) + ".", quota)


def _reserve(profile, instance_id, delta, entry):
    """Reserve `delta` on the profile for `instance_id`, deciding again while other admissions
    change its usage; a 409 when the room is gone."""
    for _ in range(MAX_ATTEMPTS):
        if profile is None:
            raise Conflict("The profile was deleted meanwhile.")
        if recorded := usage.reserve(profile, str(instance_id), delta, quantities.limits(profile), entry):
            return recorded
        profile = usage.repair(profiles.coll().find_one({"_id": profile["_id"]}))
        if profile is None:
            continue
        limits, used = quantities.limits(profile), profile["usage"]
        short = {
            name: (delta[key], used[key], limits[key])
            for name, key in RESOURCES.items()
            if delta[key] > 0 and limits[key] is not None and used[key] + delta[key] > limits[key]
        }
        if short:  # another admission took the room
            quota = {
                name: {"required": need, "used": held, "cap": cap, "available": cap - held}
                for name, (need, held, cap) in short.items()
            }
            shortfalls = "; ".join(_shortfall(name, *amounts) for name, amounts in short.items())
            raise NoRoom(f"The profile has no room for it: {shortfalls}.", quota)
    raise Conflict("The profile kept changing: try again.")


def _shortfall(name, required, used, cap):
    """`memory: requires 1 GiB, 1.5 GiB of 2 GiB used, 512 MiB available`."""
    key, spoken = RESOURCES[name], quantities.spoken
    return (
        f"{name}: requires {spoken(key, required)}, {spoken(key, used)} of {spoken(key, cap)} used, "
        f"{spoken(key, max(cap - used, 0))} available"
    )
