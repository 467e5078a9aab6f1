"""Readings across resources. No resource package imports another (tests/test_layers.py): what a
store needs of another it is given here when the app is made (`connect`), and what a route or a
filter asks of two resources at once is answered here, so that every dependency between them is
in this one module."""

from app.access.users import store as users
from app.blueprints.history.storage import store as history
from app.blueprints.storage import store as blueprints
from app.environments.storage import store as environments
from app.instances.namespaces import store as namespaces
from app.instances.storage import is_behind
from app.instances.storage import store as instances
from app.jobs.storage import store as jobs
from app.joins.to_profile import priced
from app.model.accounts import team_scope
from app.profiles.storage import store as profiles
from app.sources.storage import store as sources
from app.storage.resource_store import object_id
from app.teams.storage import store as teams


def connect():
    """Give each store what it reads of another resource."""
    blueprints.made_from = instances.made_from
    history.pinned = instances.rendered_at
    profiles.rev_of = instances.rev_of
    instances.priced = priced
    teams.user_named = users.find
    blueprints.check_entitled = profiles.check_entitled = check_entitled
    profiles.check_environments = environments.check_named
    environments.named_by = environment_named_by
    environments.named_for = profiles.environments_read_by


def check_entitled(changes, caller):
    """A 422 where a user named in `entitledUsers` or a team in `entitledTeams` does not exist."""
    users.check_entitled(changes.get("entitledUsers"), caller)
    teams.check_entitled(changes.get("entitledTeams"), caller)


def environment_named_by(name):
    """What names the environment `name` (`profile 'small'`, `instance 'shop'`), or None."""
    if (profile := profiles.naming(name)) is not None:
        return f"profile {profile!r}"
    instance = instances.one_in(name)
    return None if instance is None else f"instance {instance!r}"


def team_in_use(name):
    """What is owned by the team, held for it or names it, so that a team of the same name made
    later would inherit it: profiles, blueprints, instances (owned or naming it in
    `entitledTeams`), sources (their tokens), running jobs, and namespaces held for it."""
    scope = team_scope(name)
    owned = (("profiles", profiles), ("blueprints", blueprints), ("instances", instances), ("sources", sources))
    found = [noun for noun, resources in owned if resources.mentions(scope)]
    if jobs.running_for(scope):
        found.append("a running job")
    if (namespace := namespaces.owned_by(scope)) is not None:
        found.append(f"the namespace {namespace!r} (held for it until an admin releases it)")
    return found


def behind(args):
    """The instance list's filter `behind`: instances rendered at an older revision than their
    blueprint's current one (true), or at it (false); each blueprint read once a request."""
    if "behind" not in args:
        return None
    current = {}

    def rev_of(blueprint_id):
        if blueprint_id not in current:
            found = blueprints.stored(object_id(blueprint_id), {"rev": 1})
            current[blueprint_id] = found["rev"] if found else None
        return current[blueprint_id]

    return lambda doc: is_behind(doc, rev_of(doc["blueprint"])) == args["behind"]


def made_by_source(source):
    """The ids (as text) of the blueprints `source` made."""
    return [str(doc["_id"]) for doc in blueprints.imported_from(f"source:{source['_id']}", source["owner"]).values()]
