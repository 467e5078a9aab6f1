"""Teams in MongoDB: a name (unique, never changed) and its members, each with a team role and
where the membership came from (`manual`: the API; `sso`: the identity provider's groups).

A team is read by its members and admins, and managed by its maintainers and admins; it always
keeps a maintainer. Every write is conditional on the `rev` it was decided on, so two concurrent
changes of the members never both apply to one version (two demotions never leave it without a
maintainer). A caller's roles are read from here once a request (`roles_of`: an index on the
members' usernames), so a member who leaves loses the team's rights at their next request."""

import logging
from collections.abc import Mapping

from pymongo import ASCENDING, DESCENDING
from pymongo.errors import DuplicateKeyError

from app.errors import Conflict, Forbidden, Invalid, NotFound, PreconditionFailed
from app.model.accounts import creates_as, is_admin, team_scope
from app.storage import database, ids, pages
from app.storage.database import now
from app.storage.list_keys import ListQuery

log = logging.getLogger(__name__)
MAX_MEMBERS = 1_000
MAX_TEAMS_PER_USER = 20  # each is a scope every list of theirs reads: an equality more a window
MAX_ATTEMPTS = 100


class Teams:
    """The `teams` collection."""

    # Readings of other resources, given by app/joins/across.py `connect` (no resource imports another)
    user_named = None  # (username) -> the user, None when there is none

    def coll(self):
        return database.collection("teams")

    def create_indexes(self):
        self.coll().create_index([("name", ASCENDING)], unique=True, name="name_unique")
        self.coll().create_index([("members.username", ASCENDING), ("_id", DESCENDING)], name="member_newest")
        pages.prepare(self.coll(), by_id_alone=True)

    def create(self, fields, user):
        """A new team, its creator its first maintainer (a 409 when the name is taken)."""
        moment = now()
        doc = {
            **fields,
            "_id": ids.new_id(moment),
            "members": [{"username": user["username"], "role": "maintainer", "origin": "manual"}],
            "createdAt": moment,
            "updatedAt": moment,
            "updatedBy": user["username"],
            "rev": 1,
        }
        self._within_teams_per_user(user)
        try:
            self.coll().insert_one(doc)
        except DuplicateKeyError:
            raise Conflict(f"There is a team named {fields['name']!r} already.") from None
        pages.pager(self.coll()).created(doc["_id"])
        return doc

    def roles_of(self, username):
        """{team: role} of the teams `username` is in."""
        found = self.coll().find({"members.username": username}, {"name": 1, "members": 1})
        return {doc["name"]: role for doc in found if (role := _role(doc, username)) is not None}

    def readable(self, name, user):
        """The team `name` if `user` is in it or an admin (a 404 otherwise, as for no team)."""
        doc = self.coll().find_one({"name": name})
        if doc is None or not (is_admin(user) or _role(doc, user["username"]) is not None):
            raise NotFound(f"No team {str(name)[:64]!r} that you are in.")
        return doc

    def seen_by(self, doc, user):
        """`doc` with the caller's role in it (null for an admin outside it), whether they manage it
        (its description, members and roles; its deletion: `_write`'s rule) and whether they create
        as it (`owner_given`'s rule)."""
        role = _role(doc, user["username"])
        can = {"manage": _manages(user, role), "create": creates_as(user, team_scope(doc["name"]))}
        return {**doc, "role": role, "can": can}

    def page(self, user, limit, position=None):
        """A page of the teams `user` is in (an admin's: every team), newest first."""
        branch = {} if is_admin(user) else {"members.username": user["username"]}
        query = ListQuery((branch,), lambda doc: True, plain=is_admin(user))
        items, position = pages.pager(self.coll()).read(query, limit, position)
        return [self.seen_by(doc, user) for doc in items], position

    def missing(self, names):
        """The names among `names` that no team has."""
        found = {doc["name"] for doc in self.coll().find({"name": {"$in": list(names)}}, {"name": 1})}
        return [name for name in names if name not in found]

    def check_entitled(self, named, caller):
        """A 422 naming `entitledTeams` when a name in it is no team's (no query for none); which one
        only to an admin, as for users: which teams exist is not every member's to learn."""
        unknown = self.missing(named) if named else []
        if unknown:
            which = f" No such team: {', '.join(unknown)}." if is_admin(caller) else ""
            raise Invalid({"entitledTeams": [f"Not every name is a team.{which}"]})

    def change(self, name, user, fields, if_match=None):
        """The team with `fields` (its description) written, by a maintainer or an admin."""
        return self._write(name, user, if_match, lambda doc: fields)

    def set_member(self, name, user, username, role, origin="manual"):
        """Add `username` to the team with `role`, or give a member that role; the member as
        written. Never leaves the team without a maintainer (409). Whether the user exists is told
        only to those who manage the team: anyone else gets the team's 404 or 403 first."""

        def changes(doc):
            members = [member for member in doc["members"] if member["username"] != username]
            if len(members) == len(doc["members"]):
                if len(members) >= MAX_MEMBERS:
                    raise Conflict(f"A team has at most {MAX_MEMBERS} members.")
                self._within_teams_per_user(added)
            return {
                "members": _keeping_a_maintainer([*members, {"username": username, "role": role, "origin": origin}])
            }

        self._managed(name, user, None)  # who may not manage the team learns nothing of the user
        added = self.user_named(username)
        if added is None:
            raise NotFound(f"No user {username[:64]!r}.")
        doc = self._write(name, user, None, changes)
        return next(member for member in doc["members"] if member["username"] == username)

    def remove_member(self, name, user, username):
        """Take `username` out of the team, by a maintainer or an admin, or by themselves (leaving
        is one's own to do); never its last maintainer (409). A 404 when they are not in it."""

        def changes(doc):
            if _role(doc, username) is None:
                raise NotFound(f"{username!r} is not in the team.")
            return {"members": _keeping_a_maintainer([m for m in doc["members"] if m["username"] != username])}

        self._write(name, user, None, changes, leaving=username == user["username"])

    def delete(self, name, user, in_use, if_match=None):
        """Delete the team, by a maintainer or an admin, unless `in_use(name)` names something it
        owns, that is held for it or that names it (409, saying what)."""
        doc = self._managed(name, user, if_match)
        if remaining := in_use(name):
            raise Conflict(f"The team still has {', '.join(remaining)}: delete or change them first.")
        if not self.coll().delete_one({"_id": doc["_id"], "rev": doc["rev"]}).deleted_count:
            raise Conflict("The team changed while it was being deleted: try again.")

    def reconcile(self, username, wanted):
        """Make the memberships the identity provider gives `username` ({team: role}) the ones
        of origin `sso` they hold: added, changed or taken out; a `manual` one is never touched,
        nor a team's last maintainer taken out, nor a team added past MAX_TEAMS_PER_USER (logged).
        The teams of `wanted` that do not exist."""
        mine = {
            doc["name"]: doc
            for doc in self.coll().find({"$or": [{"members.username": username}, {"name": {"$in": list(wanted)}}]})
        }
        room = MAX_TEAMS_PER_USER - sum(_role(doc, username) is not None for doc in mine.values())
        for name, doc in sorted(mine.items()):
            member = next((m for m in doc["members"] if m["username"] == username), None)
            if member is not None and member["origin"] == "manual":
                continue
            role = wanted.get(name)
            if member is not None and role == member["role"]:
                continue
            if member is None:
                if room <= 0:
                    log.warning(
                        "single sign-on: %r is in %d teams already; not added to %r", username, MAX_TEAMS_PER_USER, name
                    )
                    continue
                room -= 1
            others = [m for m in doc["members"] if m["username"] != username]
            members = others + ([{"username": username, "role": role, "origin": "sso"}] if role else [])
            if _has_a_maintainer(members) and len(members) <= MAX_MEMBERS:
                self._replaced(doc, {"members": members}, username)
        return [name for name in wanted if name not in mine]

    def _managed(self, name, user, if_match, leaving=False):
        """The team, if `user` manages it (maintainers and admins; a 403 for its other members,
        unless they are `leaving` it) and the precondition holds."""
        doc = self.readable(name, user)
        if not (leaving or _manages(user, _role(doc, user["username"]))):
            raise Forbidden("Only the team's maintainers and admins manage it.")
        if if_match is not None and not if_match(doc):
            raise PreconditionFailed(doc)
        return doc

    def _write(self, name, user, if_match, changes_of, leaving=False):
        """The new version once `changes_of(doc)` is written over the current version, decided
        again when another write lands first."""
        for _ in range(MAX_ATTEMPTS):
            doc = self._managed(name, user, if_match, leaving)
            written = self._replaced(doc, changes_of(doc), user["username"])
            if written is not None:
                return written
        raise RuntimeError(f"a change of team {name} kept losing races")

    def _replaced(self, doc, changes, by):
        """The new version of `doc` with `changes` made by `by`, or None when `doc` is no longer
        the current version (its `rev`): every write of a team is conditional on it."""
        changes = {**changes, "updatedAt": now(), "updatedBy": by}
        written = self.coll().update_one({"_id": doc["_id"], "rev": doc["rev"]}, {"$set": changes, "$inc": {"rev": 1}})
        return {**doc, **changes, "rev": doc["rev"] + 1} if written.matched_count else None

    def _within_teams_per_user(self, user):
        """A 409 when `user` (their record) is in as many teams as a user may be; an admin may be
        in any number (they read every list as admins, not through their teams)."""
        if is_admin(user):
            return
        if len(self.roles_of(user["username"])) >= MAX_TEAMS_PER_USER:
            raise Conflict(f"A user is in at most {MAX_TEAMS_PER_USER} teams.")


def _role(doc, username):
    return next((member["role"] for member in doc["members"] if member["username"] == username), None)


def _manages(user, role):
    """Whether `user`, whose role in a team is `role`, manages it: its maintainers and admins (the
    global role a ceiling, as everywhere)."""
    return user["role"] != "viewer" and (is_admin(user) or role == "maintainer")


def _has_a_maintainer(members):
    return any(member["role"] == "maintainer" for member in members)


def _keeping_a_maintainer(members):
    if not _has_a_maintainer(members):
        raise Conflict("A team keeps at least one maintainer: make another one first.")
    return members


store = Teams()


class Roles(Mapping):
    """A caller's {team: role}, read at its first use in a request (most requests never ask)."""

    def __init__(self, username):
        self._username, self._roles = username, None

    def _read(self):
        if self._roles is None:
            self._roles = store.roles_of(self._username)
        return self._roles

    def __getitem__(self, team):
        return self._read()[team]

    def __iter__(self):
        return iter(self._read())

    def __len__(self):
        return len(self._read())
