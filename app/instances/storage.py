"""Instances in MongoDB. An instance is read by its owner (a user, or a team's every member), admins
and its profile's owner (who may change the profile); its rendered definition, which holds its
secrets, only by those who act as its owner (app/model/accounts.py) and admins. It keeps every
value its render used (`kept`, generated ones included), so that it renders the same bytes again
and an upgrade renders with them.

It has no create, change or delete of its own: what an instance spends from its profile is decided
and counted around each of its writes by app/joins/admission.py, the only caller of `insert`,
`replace_version` and `delete_version` (tests/test_layers.py holds that)."""

from pymongo import ASCENDING

from app.definitions import parameters
from app.model.accounts import acts_as_owner
from app.storage import list_keys
from app.storage.resource_store import Documents


def project(environment, name):
    """What holds an instance's name across its environment (`project`, a sparse unique index): a
    Compose project there is named after the instance."""
    return f"{environment}/{name}"


def is_behind(doc, current_rev):
    """Whether the instance `doc` was rendered at an older revision than `current_rev`, its
    blueprint's now (None: the blueprint is gone): the one reading of "behind", the list's filter
    and an upgrade of many alike."""
    return current_rev is not None and doc["blueprintRev"] < current_rev


class Instances(Documents):
    collection = "instances"
    noun = "instance"
    filters = {"name": "name", "owner": "owner", "profile": "profile", "blueprint": "blueprint"}
    # Readings of other resources, given by app/joins/across.py `connect` (no resource imports another)
    priced = None  # (instances) -> the same with their `cost` at their profiles' prices, in one read

    def create_indexes(self):
        """One name per owner, and per environment whoever owns it (`project`: a Compose project is
        named after its instance); the instances of a blueprint at a revision, and those keeping a release of
        one (what history keeps)."""
        self.coll().create_index([("owner", ASCENDING), ("name", ASCENDING)], unique=True, name="one_name_per_owner")
        self.coll().create_index([("project", ASCENDING)], unique=True, sparse=True, name="one_project_per_environment")
        self.coll().create_index([("blueprint", ASCENDING), ("blueprintRev", ASCENDING)], name="by_blueprint_rev")
        self.coll().create_index([("blueprint", ASCENDING), ("releases.rev", ASCENDING)], name="by_blueprint_release")
        super().create_indexes()

    def scopes(self, doc):
        """Its owner, admins, and its profile's owner."""
        return [list_keys.ADMINS, doc["owner"]], [doc["profileOwner"]] if doc["profileOwner"] != doc["owner"] else []

    def seen_by(self, doc, user):
        """With its `cost` now, beside what the caller may do with it."""
        return self.priced([super().seen_by(doc, user)])[0]

    def answers(self, docs, user):
        """A page priced with one read of its profiles."""
        seen_by = super().seen_by
        return self.priced([seen_by(doc, user) for doc in docs])

    def can_read_definition(self, doc, user):
        """Its owner's alone: admins, the user, a team's members and maintainers (never its viewers)."""
        return acts_as_owner(user, doc["owner"])

    def can(self, doc, user):
        """Upgrade or roll back (`change`) and delete it, acting as its owner; read its definition."""
        owner = acts_as_owner(user, doc["owner"])
        return {"change": owner, "delete": owner, "readYml": self.can_read_definition(doc, user)}

    def named(self, owner, name):
        """Whether `owner` has an instance named `name`."""
        return self.coll().find_one({"owner": owner, "name": name}, {"_id": 1}) is not None

    def in_environment(self, environment, name):
        """Whether an instance named `name` is delivered to `environment`, whoever owns it."""
        return self.coll().find_one({"project": project(environment, name)}, {"_id": 1}) is not None

    def one_in(self, environment):
        """The name of an instance delivered to `environment`, or None (`one_project_per_environment`)."""
        where = {"project": {"$gte": project(environment, ""), "$lt": f"{environment}0"}}  # "0" follows "/"
        found = self.coll().find_one(where, {"name": 1})
        return found and found["name"]

    def of_environment(self, environment, definitions=False):
        """Every instance delivered to `environment` (`one_project_per_environment` serves the
        range), with its rendered definition where `definitions`."""
        where = {"project": {"$gte": project(environment, ""), "$lt": f"{environment}0"}}  # "0" follows "/"
        left_out = {"kept": 0, "releases": 0, "observed": 0, **({} if definitions else {"yml": 0})}
        return list(self.coll().find(where, left_out))

    def observed(self, found):
        """Write each instance's `observed` ({_id: observed}); not a new version."""
        for _id, one in found.items():
            self.coll().update_one({"_id": _id}, {"$set": {"observed": one}})

    def rev_of(self, _id):
        """The instance's `rev`, None when there is none."""
        doc = self.stored(_id, {"rev": 1})
        return None if doc is None else doc["rev"]

    def made_from(self, blueprint_id, most):
        """How many instances were made from the blueprint, counted up to `most`."""
        return len(list(self.coll().find({"blueprint": str(blueprint_id)}, {"_id": 1}).limit(most)))

    def rendered_at(self, blueprint_id, rev):
        """Whether an instance is, or keeps a release, rendered at revision `rev` of the blueprint
        (`by_blueprint_rev`, `by_blueprint_release`)."""
        either = [{"blueprintRev": rev}, {"releases.rev": rev}]
        return self.coll().find_one({"blueprint": str(blueprint_id), "$or": either}, {"_id": 1}) is not None

    def counted(self, query, most=None):
        """How many instances `query` selects, counted up to `most` (None: all)."""
        if most is None:
            return self.coll().count_documents(query)
        return len(list(self.coll().find(query, {"_id": 1}).limit(most)))

    def selected(self, query, batch=200):
        """The instances `query` selects, oldest first, read a batch at a time."""
        after = None
        while True:
            page = {**query, "_id": {"$gt": after}} if after is not None else query
            found = list(self.coll().find(page).sort("_id", ASCENDING).limit(batch))
            yield from found
            if len(found) < batch:
                return
            after = found[-1]["_id"]

    def replace_version(self, doc, changes):
        """Write `changes` over `doc`, on the condition that it is still the current version."""
        written = self.coll().update_one({"_id": doc["_id"], "rev": doc["rev"]}, {"$set": changes, "$inc": {"rev": 1}})
        return written.matched_count == 1

    def delivered(self, _id, release, delivery):
        """Write the delivery of `release` (its state, job, error), if the instance is still at that
        release: a newer one's delivery is never overwritten by an older one's. Not a new version."""
        fields = {f"delivery.{key}": value for key, value in delivery.items()}
        self.coll().update_one({"_id": _id, "release": release}, {"$set": fields})

    def holds(self, _id, fields=None):
        """Whether the instance `_id` is stored, with `fields` where given: a write's outcome read back
        when its answer was lost (app/joins/outcomes.py)."""
        return self.coll().find_one({"_id": _id, **(fields or {})}, {"_id": 1}) is not None

    def delete_version(self, doc):
        """Delete `doc`, on the condition that it is still the current version."""
        return self.coll().delete_one({"_id": doc["_id"], "rev": doc["rev"]}).deleted_count == 1

    def secrets_hidden(self, doc, version):
        """The `values` that hide what `version` (the blueprint as the instance was rendered from it;
        None: not known) says is secret, where `doc` shows one; {} otherwise."""
        values = parameters.shown(parameters.secret_names((version or {}).get("parameters") or {}), doc["values"])
        return {} if values == doc["values"] else {"values": values}


store = Instances()
