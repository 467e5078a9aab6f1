"""Accounts: the rules of usernames, passwords and roles, what each role implies, and who acts as
a resource's owner (the user and token bodies are app/access/schemas.py).

A resource is owned by a user (`owner`: the username) or by a team (`owner`: `team:NAME`). A
caller carries the roles of the teams they are in (`teams`: {team: role}, read once a request by
app/access/auth.py), so every rule here is a function of the caller and the resource alone."""

import marshmallow as ma

from app.errors import Forbidden
from app.model import dns
from app.model.fields import DNS_LABEL, Pattern

ROLES = ("viewer", "member", "admin")
IMPLIED_ROLES = {"viewer": ["viewer"], "member": ["viewer", "member"], "admin": ["viewer", "member", "admin"]}
USERNAME = Pattern(r"[A-Za-z0-9_.@-]{3,64}", error="3-64 characters of letters, digits, _ . @ -")
PASSWORD = ma.validate.Length(8, 1024)

TEAM_ROLES = ("viewer", "member", "maintainer")
ACTING_ROLES = ("member", "maintainer")  # a team's roles that act as the owner of what it owns
TEAM = "team:"  # an owner (and a reader's scope) that is a team; no username holds a colon
OWNER = Pattern(
    rf"{USERNAME.regex.pattern[1:-1]}|{TEAM}{dns.LABEL.regex.pattern}",
    error="A username, or team:NAME for a team you are a member of.",
)

MAX_ENTITLED_USERS = 100
MAX_ENTITLED_TEAMS = 100


def Username(**kwargs):
    return ma.fields.String(validate=USERNAME, **kwargs)


def TeamName(**kwargs):
    return ma.fields.String(validate=DNS_LABEL, **kwargs)


def Owner(**kwargs):
    """Who owns a resource: given on create (default: the caller), the same value or none after."""
    description = "The owner: a username, or team:NAME. Given on create only (default: you); ?owner= is exact."
    return ma.fields.String(validate=OWNER, metadata={"description": description}, **kwargs)


ACTIONS = {
    "change": "change it (an instance: upgrade or roll it back; a source: sync it too)",
    "delete": "delete it",
    "deploy": "deploy from it (a blueprint), or against it (a profile)",
    "readYml": "read its rendered definition, which holds its secrets",
    "manage": "change its description, members and roles, and delete it",
    "create": "create blueprints, profiles, instances, imports and sources",
    "createTeams": "create teams",
    "manageUsers": "create, change and disable users; register environments",
}


def Can(*actions):
    """What the caller may do with the resource answered (`actions`, each true or false), computed
    by the rule that decides each request; read-only."""
    schema = ma.Schema.from_dict(
        {action: ma.fields.Boolean(required=True, metadata={"description": ACTIONS[action]}) for action in actions},
        name=f"Can{''.join(action[0].upper() + action[1:] for action in actions)}",
    )
    description = "What you may do with it, by the rules that decide those requests; clients show no other action."
    return ma.fields.Nested(schema, dump_only=True, metadata={"description": description})


def EntitledUsers(**kwargs):
    """The users a resource is shared with, beside its owner (they must exist: users.storage)."""
    kwargs.setdefault("allow_none", True)
    return ma.fields.List(Username(), validate=ma.validate.Length(max=MAX_ENTITLED_USERS), **kwargs)


def EntitledTeams(**kwargs):
    """The teams a resource is shared with: their members and maintainers use it, their viewers read
    it (they must exist: teams/storage.py)."""
    kwargs.setdefault("allow_none", True)
    return ma.fields.List(TeamName(), validate=ma.validate.Length(max=MAX_ENTITLED_TEAMS), **kwargs)


def is_admin(user):
    return user["role"] == "admin"


def holds(user, role):
    """Whether `user`'s global role is `role` or one above it, as every endpoint's gate decides."""
    return role in IMPLIED_ROLES[user["role"]]


def creates_teams(user, by_members):
    """Whether `user` creates teams: admins, and members where the operator lets them (`by_members`,
    TEAMS_BY_MEMBERS)."""
    return is_admin(user) or (by_members and holds(user, "member"))


def team_scope(name):
    """The owner, and the readers' scope, that is the team `name`."""
    return f"{TEAM}{name}"


def team_of(owner):
    """The team an owner names, or None for a user."""
    return owner[len(TEAM) :] if owner.startswith(TEAM) else None


def team_roles(user):
    """{team: role} of the teams `user` is in (none for a record read outside a request)."""
    return user.get("teams") or {}


def shared_with(doc):
    """The readers a resource names beside its owner: its users, and its teams as `team:NAME`
    (either field null where an earlier version's PUT left it so)."""
    named = [*(doc.get("entitledUsers") or ()), *map(team_scope, doc.get("entitledTeams") or ())]
    return [reader for reader in named if reader != doc["owner"]]


def scopes_of(user):
    """What `user` reads with besides the admins' and everyone's: their name and their teams'."""
    return [user["username"], *(team_scope(team) for team in team_roles(user))]


def acts_as_owner(user, owner):
    """Whether `user` changes, deletes and deploys what `owner` owns: admins, the owner, and a
    team's members and maintainers (never its viewers); the global role is a ceiling, so a global
    viewer acts as no one's owner, whatever its team role or its name."""
    if user["role"] == "viewer":
        return False
    return is_admin(user) or owner == user["username"] or _acts_for_team(user, owner)


def creates_as(user, owner):
    """Whether `user` creates what `owner` will own: themselves, or a team they are a member or
    maintainer of (an admin too: only as its member); never a global viewer."""
    return holds(user, "member") and (owner == user["username"] or _acts_for_team(user, owner))


def _acts_for_team(user, owner):
    """Whether `owner` is a team `user` is a member or maintainer of (never its viewer)."""
    team = team_of(owner)
    return team is not None and team_roles(user).get(team) in ACTING_ROLES


def owner_given(user, owner):
    """The owner a create by `user` gives its resource: themselves unless `owner` names a team
    they act for (a 403 for any other)."""
    if owner is None or owner == user["username"]:
        return user["username"]
    if not creates_as(user, owner):
        raise Forbidden("You create as yourself, or as team:NAME for a team you are a member or maintainer of.")
    return owner
