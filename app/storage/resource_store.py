"""The storage every owned, versioned resource shares (profiles and blueprints).

Each document carries `owner`, `createdAt`, `updatedAt`, `updatedBy`, `rev` (bumped by every
write, the basis of the ETag) and `keys` (what lists find it by, derived by `rekeyed` on every
write); its id orders by creation time (`ids`). Every write is conditional on the `rev` it was
decided on, so two concurrent edits never both apply to the same version. A resource's store says
who may read a document (`scopes`) and which list parameters filter which field, and adds its
rules through the hooks below.
"""

from bson import ObjectId
from bson.errors import InvalidId
from flask import current_app
from pymongo import ASCENDING
from pymongo.errors import DuplicateKeyError

from app.errors import Conflict, Forbidden, Invalid, NotFound, PreconditionFailed
from app.model.accounts import acts_as_owner, is_admin, owner_given, scopes_of
from app.storage import ids, list_keys, pages
from app.storage.database import collection, now

MAX_ATTEMPTS = 100  # a failed attempt means another request's write landed first


class Collision(RuntimeError):
    """A write a unique index kept refusing: another write holds what it needs."""


def object_id(text, noun="resource"):
    """An id that is not 24 lowercase hex digits names nothing: 404, like an unknown one."""
    try:
        if len(text) == 24 and text == text.lower():
            return ObjectId(text)
    except InvalidId:
        pass
    raise missing(noun, text)


REMOVED = object()  # a migration's change that removes a field (`reshape`)


def _as_read(doc):
    """The condition that a document is still the version `doc` was read at: its `rev`, and its
    keys, which a star changes alone."""
    return {"_id": doc["_id"], "rev": doc.get("rev"), list_keys.FIELD: doc.get(list_keys.FIELD)}


def missing(noun, id_text):
    """The 404 of an id, the same whether nothing has it or the caller may not read it."""
    return NotFound(f"No {noun} {str(id_text)[:40]!r} that you may read.")


class Documents:
    """Reading an owned, versioned resource: who may read it, its keys and its lists, and the
    document a create drafts. A store that writes only through the code that decides its writes
    (the instance store, written by app/joins/admission.py) is one of these alone."""

    collection = None  # set by each resource
    noun = "resource"  # what a 404 names
    filters = {"name": "name", "owner": "owner"}  # list parameter -> the field it compares
    public = False  # whether some documents are readable by everyone
    retired_indexes = ()  # indexes earlier versions made, dropped at start-up

    def coll(self):
        return collection(self.collection)

    def pager(self):
        """This app's pager of the collection (`pages.Pager`), made by `create_indexes`."""
        return pages.pager(self.coll())

    def create_indexes(self):
        """The index every list reads (the ones it replaced go), and the collection's floor
        (`pages`)."""
        self.coll().create_index(list_keys.INDEX["keys"], name=list_keys.INDEX["name"])
        existing = self.coll().index_information()
        for name in self.retired_indexes:
            if name in existing:
                self.coll().drop_index(name)
        pages.prepare(self.coll())

    def scopes(self, doc):
        """Who may read `doc`, as (scopes, users named one by one): by default its owner and admins."""
        return [list_keys.ADMINS, doc["owner"]], []

    def apply_rules(self, changes, stored, user):
        """The changes `user` would write, once the rules that need `stored` (None on create) hold."""
        return changes

    def readable(self, id_text, user):
        doc = self.whole(object_id(id_text, self.noun))
        if doc is None or not self.can_read(doc, user):
            raise missing(self.noun, id_text)
        return doc

    def whole(self, _id):
        """The document whose id is `_id` as answered, with its parts, or None, whoever asks."""
        doc = self.stored(_id)
        return None if doc is None else self.with_parts([doc])[0]

    def stored(self, _id, projection=None):
        """The document whose id is `_id` (an ObjectId) as stored, or None, whoever asks: for the
        service's own use (a blueprint's current rev, a migration's read), never answered without
        `readable`'s check."""
        return self.coll().find_one({"_id": _id}, projection)

    def caller_scopes(self, user):
        """The scopes `user` reads with: their own and their teams' (admins': ADMINS), then everyone's."""
        own = [list_keys.ADMINS] if is_admin(user) else scopes_of(user)
        return [*own, list_keys.EVERYONE] if self.public else own

    def with_parts(self, docs):
        """The documents as answered, with what is kept of them elsewhere (a profile's usage): every
        answer of a document read passes through it (`stored` reads a document as stored)."""
        return docs

    def seen_by(self, doc, user):
        """`doc` as `user` sees it, with what they may do with it (`can`): every answer of a
        document passes through it."""
        return {**doc, "can": self.can(doc, user)}

    def answers(self, docs, user):
        """`docs` as `user` sees them: a list's page."""
        return [self.seen_by(doc, user) for doc in docs]

    def can(self, doc, user):
        """What `user`, who reads `doc`, may do with it, by the rules that decide those requests:
        change and delete it (acting as its owner: `checked`), deploy from it (`usable`, and a
        role that writes). Clients show an action only where this allows it."""
        owner = acts_as_owner(user, doc["owner"])
        return {"change": owner, "delete": owner, "deploy": user["role"] != "viewer" and self.usable(doc, user)}

    def can_read(self, doc, user):
        scopes, named = self.scopes(doc)
        readers = {*scopes, *named}
        if user["username"] in readers or list_keys.EVERYONE in readers:  # without reading their teams
            return True
        return not readers.isdisjoint(self.caller_scopes(user))

    def usable(self, doc, user):
        """Whether `user`, who reads `doc`, may also spend from it or deploy it: what is public,
        what they act as the owner of, what names them, and what names a team of which they are
        a member or maintainer (its viewers only read it)."""
        scopes, named = self.scopes(doc)
        if list_keys.EVERYONE in scopes or user["username"] in named:
            return True
        return any(acts_as_owner(user, owner) for owner in (doc["owner"], *named))

    def mentions(self, scope):
        """Whether a document is owned by `scope` or names it among its readers (its plain key)."""
        return self.coll().find_one({list_keys.FIELD: scope}, {"_id": 1}) is not None

    def keys(self, doc):
        """What `doc` is found by in lists (list_keys): the one place keys are derived."""
        scopes, named = self.scopes(doc)
        doc_terms = list_keys.terms(doc, self.filters.values())
        return list_keys.document_keys(scopes, named, doc_terms, doc.get("starredBy", ()))

    def rekeyed(self, doc, changes):
        """`changes` to `doc`, with the keys the changed document is found by where they differ."""
        found_by = self.keys({**doc, **changes})
        return changes if found_by == doc.get(list_keys.FIELD) else {**changes, list_keys.FIELD: found_by}

    def list(self, user, args, also=None):
        """(items, the Position of the next page or None): a page of what `user` may read, as they
        see it, narrowed by the list parameters in `args` and the predicate `also` (a filter that needs
        another resource, such as a fit)."""
        query = list_keys.list_query(
            self.filters,
            self.caller_scopes(user),
            user["username"],
            args,
            lambda doc: self.can_read(doc, user),
            also,
            self.with_parts,
        )
        most = current_app.config["LIST_MOST_EXAMINED"]
        items, position = self.pager().read(query, args["limit"], args.get("cursor"), most)
        return self.answers(items, user), position

    def drafted(self, fields, user, id=None, dry_run=False):
        """The document a create of `fields` by `user` inserts (a dry run's: without an id)."""
        moment, fields = now(), dict(fields)
        owner = owner_given(user, fields.pop("owner", None))
        doc = {
            **self.apply_rules(fields, None, user),
            "_id": None if dry_run else id or ids.new_id(moment),
            "owner": owner,
            "createdAt": moment,
            "updatedAt": moment,
            "updatedBy": user["username"],
            "rev": 1,
        }
        return doc if dry_run else self.rekeyed({}, doc)

    def reshape(self, doc, changes):
        """Write a migration's `changes` to `doc` (a field changed to REMOVED goes), which bring it to
        the present shape without making a new version, on the condition that it is still the
        version read (its `rev`, and its keys, which a star changes alone); whether it was."""
        update = {
            "$set": {field: value for field, value in changes.items() if value is not REMOVED},
            "$unset": {field: "" for field, value in changes.items() if value is REMOVED},
        }
        update = {operator: fields for operator, fields in update.items() if fields}
        return self.coll().update_one(_as_read(doc), update).matched_count == 1

    def insert(self, doc):
        coll = self.coll()
        coll.insert_one(doc)
        self.pager().created(doc["_id"])
        return doc

    def checked(self, id_text, user, if_match):
        """The current version, if `user` may change it and the precondition holds."""
        doc = self.readable(id_text, user)
        if not acts_as_owner(user, doc["owner"]):
            raise Forbidden(
                "Only the owner (a team's members and maintainers) or an admin may change or delete this resource."
            )
        if if_match is not None and not if_match(doc):
            raise PreconditionFailed(doc)
        return doc


def _same_owner(changes, doc):
    """`changes` without `owner`, which a change may send only as it is (a 422 for another)."""
    changes = dict(changes)
    if changes.pop("owner", doc["owner"]) != doc["owner"]:
        raise Invalid({"owner": ["The owner is given on create only: send the same one, or none."]})
    return changes


class ResourceStore(Documents):
    """An owned, versioned resource its routes write through: create, change and delete under the
    rules its store adds through the hooks below, and what imports ask of it."""

    def before_write(self, stored, changes):
        """Runs before every attempt to write `changes` over `stored` (None on create, when
        `changes` is the whole new document). A write that hits a unique index a concurrent one
        has just filled runs it again, then retries."""

    def deletable(self, doc):
        """The condition the document must still meet when it is deleted (a 409 otherwise): by
        default none."""
        return {}

    def refused_delete(self, doc):
        """The 409 of a delete the `deletable` condition refused."""
        return Conflict(f"This {self.noun} cannot be deleted now.")

    def after_delete(self, doc):
        """Runs once the document is gone (what belonged to it goes after it: a crash in between
        leaves unreachable leftovers, never a resource without its parts)."""

    def create_source_index(self):
        """What an import made is found by its owner, source and key, one document each (only the
        documents an import made are in it): a source is each owner's own, so that nobody learns
        of another's documents through it or takes a source first. Made once: mongomock checks a
        partial index's uniqueness again at every create, over documents its filter leaves out."""
        if "one_per_owner_source" in self.coll().index_information():
            return
        self.coll().create_index(
            [("owner", ASCENDING), ("source.name", ASCENDING), ("source.key", ASCENDING)],
            unique=True,
            name="one_per_owner_source",
            partialFilterExpression={"source.name": {"$exists": True}},
        )

    def imported_from(self, source, owner):
        """{key: document} of what `owner`'s imports of `source` made (`one_per_owner_source`)."""
        found = self.coll().find({"owner": owner, "source.name": source})
        return {doc["source"]["key"]: doc for doc in found}

    def owned(self, id_text, user):
        """`user`'s own document whose id is `id_text`, or None: the one an export of ours names as
        where it came from, which its owner's import updates."""
        if not id_text or not ObjectId.is_valid(id_text):
            return None
        return self.coll().find_one({"_id": ObjectId(id_text), "owner": user["username"]})

    def differing(self, stored, changes):
        """`changes` less those that say what `stored` says already, in other words (an import's
        update is `unchanged` when nothing it means differs)."""
        return changes

    def create(self, fields, user, id=None, dry_run=False):
        """Insert. An idempotent request names the `id` (an ObjectId) the document gets, so a retry
        finds what an earlier attempt made instead of making it again. A dry run makes every
        check and returns the document it would insert, without an id, storing nothing."""
        earlier = id and self.stored(id)
        if earlier:
            return self.with_parts([earlier])[0]
        doc = self.drafted(fields, user, id, dry_run)
        return doc if dry_run else self._attempt(None, doc, self.insert, doc)

    def update(self, id_text, user, changes, if_match=None, dry_run=False):
        """Apply `changes` (PATCH: the fields sent; PUT: all of them) to the current version.

        `if_match(doc)` says whether the client's precondition holds (412 if not). Without one,
        a write that loses a race to another is decided again on the new version. A dry run
        returns the version the change would make, storing nothing.
        """
        for _ in range(MAX_ATTEMPTS):
            doc = self.checked(id_text, user, if_match)
            todo = self.apply_rules(_same_owner(changes, doc), doc, user)
            if not todo:
                return doc
            todo = self.rekeyed(doc, {**todo, "updatedBy": user["username"]})
            if dry_run:
                return {**doc, **todo, "updatedAt": now(), "rev": doc["rev"] + 1}
            updated = self._attempt(doc, todo, self._update, doc, todo)
            if updated is not None:
                return updated  # else decided again on the new version (412 if If-Match no longer holds)
        raise RuntimeError(f"update of {id_text} kept losing races")

    def delete(self, id_text, user, if_match=None):
        doc = self.checked(id_text, user, if_match)
        condition = {"_id": doc["_id"], **self.deletable(doc)}
        if if_match is not None:
            condition["rev"] = doc["rev"]
        if self.coll().delete_one(condition).deleted_count:
            self.after_delete(doc)
        elif if_match is not None and self.coll().find_one({"_id": doc["_id"], "rev": doc["rev"]}) is None:
            raise PreconditionFailed(self.readable(id_text, user))  # changed or deleted since it was read
        elif condition.keys() - {"_id", "rev"} and self.coll().find_one({"_id": doc["_id"]}) is not None:
            raise self.refused_delete(self.coll().find_one({"_id": doc["_id"]}))

    def _update(self, doc, changes):
        """The new version, or None if `doc` is no longer the current one (its rev, or its keys,
        which a star changes). An update, not a findAndModify, which the embedded server answers by
        reading the whole collection: the new version is `doc` with the changes, since the write
        was conditional on `doc`."""
        changes = {**changes, "updatedAt": now()}
        written = self.coll().update_one(_as_read(doc), {"$set": changes, "$inc": {"rev": 1}})
        return {**doc, **changes, "rev": doc["rev"] + 1} if written.matched_count else None

    def _attempt(self, stored, changes, write, *args):
        """`write(*args)` after `before_write`, again while a unique index refuses it."""
        for _ in range(MAX_ATTEMPTS):
            self.before_write(stored, changes)
            try:
                return write(*args)
            except DuplicateKeyError:
                continue
        raise Collision("kept colliding with concurrent writes")
