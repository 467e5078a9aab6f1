"""Projects being taken down: a deleted instance's Compose project stays held in its environment
(`_id`: the instance's `project`) until the engine has taken it down, so that an instance of the
same name is not delivered into it meanwhile (a 409), and a take-down that failed or whose process
died is tried again by the environment's observation."""

from pymongo import ReturnDocument

from app.instances.storage import project
from app.storage.database import collection, now


class Removals:
    """The `removals` collection: each project being taken down, and how it went."""

    def coll(self):
        return collection("removals")

    def take(self, doc, purge):
        """Hold the project of the instance `doc`, about to be deleted (`purge`: its volumes too);
        the removal."""
        fields = {"instance": str(doc["_id"]), "environment": doc["environment"], "name": doc["name"]}
        fields["namespace"] = doc.get("namespace")
        fields |= {"owner": doc["owner"], "purge": purge, "state": "removing", "at": now(), "error": None}
        return self.coll().find_one_and_update(
            {"_id": doc["project"]}, {"$set": fields}, upsert=True, return_document=ReturnDocument.AFTER
        )

    def holds(self, environment, name):
        """Whether the project of an instance `name` in `environment` is being taken down."""
        return self.coll().find_one({"_id": project(environment, name)}, {"_id": 1}) is not None

    def failed(self, doc, error):
        """The take-down of `doc` (a removal) failed, saying why; tried again after its backoff."""
        change = {"$set": {"state": "failed", "at": now(), "error": error}, "$inc": {"failures": 1}}
        self.coll().update_one({"_id": doc["_id"], "instance": doc["instance"]}, change)

    def again(self, doc):
        """The take-down of `doc` started again."""
        self.coll().update_one(
            {"_id": doc["_id"], "instance": doc["instance"]}, {"$set": {"state": "removing", "at": now()}}
        )

    def let_go(self, doc):
        """The project of `doc` is down, or its instance was not deleted after all: it is free."""
        self.coll().delete_one({"_id": doc["_id"], "instance": doc["instance"]})

    def of_environment(self, environment):
        """The projects being taken down in `environment` (the `_id` index serves the range)."""
        where = {"_id": {"$gte": project(environment, ""), "$lt": f"{environment}0"}}  # "0" follows "/"
        return list(self.coll().find(where))


store = Removals()
