"""What storing a resource means, shared by profiles and blueprints.

Each document carries `owner`, `createdAt`, `updatedAt` and `rev`, a counter bumped by every write
and the basis of the ETag. Every write is conditional on the `rev` it was decided on, so two
concurrent edits can never both apply to the same version. Subclasses say who may read
(`readable`), which list parameters are exact filters, and add their own rules.
"""
import re

from bson import ObjectId
from bson.errors import InvalidId
from flask_smorest import abort
from pymongo import ReturnDocument
from pymongo.errors import DuplicateKeyError

from app import pagination
from app.auth import is_admin
from app.database import get_db, now

MAX_ATTEMPTS = 100  # a failed attempt means another request's write landed first


def object_id(text):
    """An id that is not 24 lowercase hex digits names nothing: 404, like an unknown one."""
    try:
        if len(text) == 24 and text == text.lower():
            return ObjectId(text)
    except InvalidId:
        pass
    abort(404)


class Store:
    collection = None  # set by subclasses
    exact_filters = ("name", "owner")

    def coll(self):
        return get_db()[self.collection]

    # Reading

    def readable(self, user):
        """A MongoDB filter for the documents `user` may read."""
        return {} if is_admin(user) else {"owner": user["username"]}

    def get(self, id_text, user):
        doc = self.coll().find_one({"_id": object_id(id_text), **self.readable(user)})
        if doc is None:
            abort(404)
        return doc

    def list(self, user, args):
        """A page of what `user` may read, narrowed by the list parameters in `args`."""
        conditions = [self.readable(user)]
        conditions += [{name: args[name]} for name in self.exact_filters if name in args]
        if "q" in args:
            pattern = {"$regex": re.escape(args["q"]), "$options": "i"}
            conditions.append({"$or": [{"name": pattern}, {"description": pattern}]})
        return pagination.page(self.coll(), {"$and": conditions}, args)

    # Writing

    def create(self, fields, user, id=None):
        """Insert. An idempotent request names the `id` (an ObjectId) the document gets, so a retry
        finds what an earlier attempt made instead of making it again."""
        earlier = id and self.coll().find_one({"_id": id})
        return earlier or self.insert(fields, user, id)

    def insert(self, fields, user, id=None):
        moment = now()
        doc = {**fields, "owner": user["username"], "createdAt": moment, "updatedAt": moment, "rev": 1}
        if id:
            doc["_id"] = id
        self.coll().insert_one(doc)
        return doc

    def writable(self, doc, user):
        """Only its owner or an admin changes or deletes a resource; others who may read it get 403."""
        if not (is_admin(user) or doc["owner"] == user["username"]):
            abort(403, message="Only the owner or an admin may change or delete this resource.")

    def prepare(self, changes, stored):
        """Rules that need the stored document; returns the changes to write."""
        return changes

    def update(self, id_text, user, changes, if_match=None):
        """Apply `changes` (PATCH: the fields sent; PUT: all of them) to the current version.

        `if_match(doc)` says whether the client's precondition holds (412 if not). Without one,
        a write that loses a race to another is decided again on the new version.
        """
        for _ in range(MAX_ATTEMPTS):
            doc = self._checked(id_text, user, if_match)
            todo = self.prepare(dict(changes), doc)
            if not todo:
                return doc
            updated = self._write(doc, todo)
            if updated is not None:
                return updated
            if if_match is not None:
                abort(412)
        raise RuntimeError(f"update of {id_text} kept losing races")

    def _write(self, doc, changes):
        """The new version, or None if `doc` is no longer the current one."""
        return self.coll().find_one_and_update(
            {"_id": doc["_id"], "rev": doc["rev"]},
            {"$set": {**changes, "updatedAt": now()}, "$inc": {"rev": 1}},
            return_document=ReturnDocument.AFTER)

    def delete(self, id_text, user, if_match=None):
        doc = self._checked(id_text, user, if_match)
        condition = {"_id": doc["_id"]}
        if if_match is not None:
            condition["rev"] = doc["rev"]
        if not self.coll().delete_one(condition).deleted_count and if_match is not None:
            abort(412)

    def _checked(self, id_text, user, if_match):
        doc = self.get(id_text, user)
        self.writable(doc, user)
        if if_match is not None and not if_match(doc):
            abort(412)
        return doc


def retry_on_duplicate(write):
    """Run `write` until it stops hitting a unique index that a concurrent request just filled."""
    for _ in range(MAX_ATTEMPTS):
        try:
            return write()
        except DuplicateKeyError:
            continue
    raise RuntimeError("kept colliding with concurrent writes")
