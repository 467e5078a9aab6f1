"""The storage every owned, versioned resource shares (profiles and blueprints).

Each document carries `owner`, `createdAt`, `updatedAt`, `updatedBy` and `rev`, a counter bumped by
every write and the basis of the ETag; its id orders by creation time (`ids`). Every write is conditional on
the `rev` it was decided on, so two concurrent edits can never both apply to the same version.
Every query is one an index serves (flat, and bounded: `pagination`); every list is served by the
documents' `keys` (`list_filters`), written with each version. A resource's store says who may
read a document (`scopes`), which list parameters filter on which field, and adds its rules
through two hooks: `apply_rules` (checks that need the stored version or other collections) and
`before_write` (work that must precede every attempt of a write, such as demoting the previous
default).
"""

from bson import ObjectId
from bson.errors import InvalidId
from pymongo import ASCENDING, DESCENDING
from pymongo.errors import DuplicateKeyError

from app.errors import Forbidden, NotFound, PreconditionFailed
from app.model.accounts import is_admin
from app.storage import backfill, ids, list_filters, pagination
from app.storage.database import get_db, now

MAX_ATTEMPTS = 100  # a failed attempt means another request's write landed first
KEYS_INDEX = {"keys": [("keys", ASCENDING), ("_id", DESCENDING)], "name": "keys_newest"}


def object_id(text):
    """An id that is not 24 lowercase hex digits names nothing: 404, like an unknown one."""
    try:
        if len(text) == 24 and text == text.lower():
            return ObjectId(text)
    except InvalidId:
        pass
    raise NotFound()


class ResourceStore:
    collection = None  # set by each resource
    filters = {"name": "name", "owner": "owner"}  # list parameter -> the field it compares
    public = False  # whether some documents are readable by everyone
    retired_indexes = ()  # indexes earlier versions made, dropped at start-up

    def coll(self):
        return get_db()[self.collection]

    def create_indexes(self):
        """The index every list reads (the ones it replaced go), and the collection's floor
        (`pagination`)."""
        self.coll().create_index(KEYS_INDEX["keys"], name=KEYS_INDEX["name"])
        existing = self.coll().index_information()
        for name in self.retired_indexes:
            if name in existing:
                self.coll().drop_index(name)
        pagination.prepare(self.coll(), newest_index=False)

    # Hooks

    def scopes(self, doc):
        """Who may read `doc`, as (scopes, users named one by one): by default its owner and admins."""
        return [list_filters.ADMINS, doc["owner"]], []

    def apply_rules(self, changes, stored):
        """The changes to write, once the rules that need `stored` (None on create) hold."""
        return changes

    def before_write(self, stored, changes):
        """Runs before every attempt to write `changes` over `stored` (None on create, when
        `changes` is the whole new document). A write that hits a unique index a concurrent one
        has just filled runs it again, then retries."""

    def after_delete(self, doc):
        """Runs once the document is gone (what belonged to it goes after it: a crash in between
        leaves unreachable leftovers, never a resource without its parts)."""

    # Reading

    def get(self, id_text, user):
        doc = self.coll().find_one({"_id": object_id(id_text)})
        if doc is None or not self.can_read(doc, user):
            raise NotFound()
        return doc

    def caller_scopes(self, user):
        """The scopes `user` reads with: their own (admins': ADMINS), then everyone's."""
        own = list_filters.ADMINS if is_admin(user) else user["username"]
        return [own, list_filters.EVERYONE] if self.public else [own]

    def can_read(self, doc, user):
        scopes, named = self.scopes(doc)
        return not {*scopes, *named}.isdisjoint(self.caller_scopes(user))

    def keys(self, doc):
        """What `doc` is found by (list_filters)."""
        scopes, named = self.scopes(doc)
        doc_terms = list_filters.terms(doc, self.filters.values())
        return list_filters.keys(scopes, named, doc_terms, doc.get("starredBy", ()))

    def pending(self):
        """Whether documents stored before `keys` existed may still lack them."""
        return backfill.pending(self)

    def densest(self):
        """How dense (documents per ms) those documents may be (backfill)."""
        return backfill.densest(self)

    def list(self, user, args, also=None):
        """A page of what `user` may read, narrowed by the list parameters in `args` and the
        predicate `also` (a filter that needs another resource, such as a fit)."""
        branches, keep, most_examined, densest = list_filters.plan(self, user, args, also)
        return pagination.page(self.coll(), branches, keep, args, most_examined, densest)

    # Writing

    def create(self, fields, user, id=None, dry_run=False):
        """Insert. An idempotent request names the `id` (an ObjectId) the document gets, so a retry
        finds what an earlier attempt made instead of making it again. A dry run makes every
        check and returns the document it would insert, without an id, storing nothing."""
        earlier = id and self.coll().find_one({"_id": id})
        if earlier:
            return earlier
        moment = now()
        doc = {
            **self.apply_rules(fields, None),
            "_id": None if dry_run else id or ids.new_id(moment),
            "owner": user["username"],
            "createdAt": moment,
            "updatedAt": moment,
            "updatedBy": user["username"],
            "rev": 1,
        }
        if dry_run:
            return doc
        doc["keys"] = self.keys(doc)
        return self._attempt(None, doc, self._insert, doc)

    def update(self, id_text, user, changes, if_match=None, dry_run=False):
        """Apply `changes` (PATCH: the fields sent; PUT: all of them) to the current version.

        `if_match(doc)` says whether the client's precondition holds (412 if not). Without one,
        a write that loses a race to another is decided again on the new version. A dry run
        returns the version the change would make, storing nothing.
        """
        for _ in range(MAX_ATTEMPTS):
            doc = self._checked(id_text, user, if_match)
            todo = self.apply_rules(dict(changes), doc)
            if not todo:
                return doc
            todo["updatedBy"] = user["username"]
            found_by = self.keys({**doc, **todo})
            if found_by != doc.get("keys"):
                todo["keys"] = found_by
            if dry_run:
                return {**doc, **todo, "updatedAt": now(), "rev": doc["rev"] + 1}
            updated = self._attempt(doc, todo, self._update, doc, todo)
            if updated is not None:
                return updated  # else decided again on the new version (412 if If-Match no longer holds)
        raise RuntimeError(f"update of {id_text} kept losing races")

    def delete(self, id_text, user, if_match=None):
        doc = self._checked(id_text, user, if_match)
        condition = {"_id": doc["_id"]}
        if if_match is not None:
            condition["rev"] = doc["rev"]
        if self.coll().delete_one(condition).deleted_count:
            self.after_delete(doc)
        elif if_match is not None:
            raise PreconditionFailed()

    def _insert(self, doc):
        self.coll().insert_one(doc)
        return doc

    def _update(self, doc, changes):
        """The new version, or None if `doc` is no longer the current one (its rev, or its keys,
        which a star changes). An update, not a findAndModify, which the embedded server answers by
        reading the whole collection: the new version is `doc` with the changes, since the write
        was conditional on `doc`."""
        changes = {**changes, "updatedAt": now()}
        current = {"_id": doc["_id"], "rev": doc["rev"], "keys": doc.get("keys")}
        written = self.coll().update_one(current, {"$set": changes, "$inc": {"rev": 1}})
        return {**doc, **changes, "rev": doc["rev"] + 1} if written.matched_count else None

    def _attempt(self, stored, changes, write, *args):
        """`write(*args)` after `before_write`, again while a unique index refuses it."""
        for _ in range(MAX_ATTEMPTS):
            self.before_write(stored, changes)
            try:
                return write(*args)
            except DuplicateKeyError:
                continue
        raise RuntimeError("kept colliding with concurrent writes")

    def _checked(self, id_text, user, if_match):
        """The current version, if `user` may change it and the precondition holds."""
        doc = self.get(id_text, user)
        if not (is_admin(user) or doc["owner"] == user["username"]):
            raise Forbidden("Only the owner or an admin may change or delete this resource.")
        if if_match is not None and not if_match(doc):
            raise PreconditionFailed()
        return doc
