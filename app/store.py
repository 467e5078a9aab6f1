"""What storing a resource means, shared by profiles and blueprints.

Each document carries `owner`, `createdAt`, `updatedAt` and `rev`, a counter bumped by every write
that is the basis of the ETag. Subclasses say who may read (`readable`) and add their own rules.
"""
from datetime import UTC, datetime

from bson import ObjectId
from bson.errors import InvalidId
from flask_smorest import abort

from app.auth import is_admin
from app.database import get_db


def now():
    """MongoDB keeps milliseconds; truncating here makes the 201 body equal to later reads."""
    moment = datetime.now(UTC)
    return moment.replace(microsecond=moment.microsecond // 1000 * 1000)


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

    def coll(self):
        return get_db()[self.collection]

    def readable(self, user):
        """A MongoDB filter for the documents `user` may read."""
        return {} if is_admin(user) else {"owner": user["username"]}

    def get(self, id_text, user):
        doc = self.coll().find_one({"_id": object_id(id_text), **self.readable(user)})
        if doc is None:
            abort(404)
        return doc

    def insert(self, fields, user):
        moment = now()
        doc = {**fields, "owner": user["username"], "createdAt": moment, "updatedAt": moment, "rev": 1}
        self.coll().insert_one(doc)
        return doc
