"""Upgrades in one step: every instance of a selection (a blueprint, a source's blueprints, a
profile, a team; those behind alone) that the caller may change, each admitted and upgraded on
its own, oldest first, as `admission.upgrade_instance` does one: one refused leaves the others done and
says why. A dry run answers the same without writing: the revision each moves to, the diff of its
rendering, the services (or Kubernetes objects) and parameters that appear and go, and the
admission's verdict against its profile."""

from app.blueprints.storage import store as blueprints
from app.errors import NoRoom, NotFound, Problem
from app.http.preconditions import etag
from app.instances.storage import is_behind
from app.instances.storage import store as instances
from app.joins import across, admission
from app.model import yamlguard
from app.model.accounts import ACTING_ROLES, acts_as_owner, is_admin, team_roles, team_scope
from app.model.yamlguard import YamlError
from app.sources.storage import store as sources

MOST_AT_ONCE = 50  # past this many, an upgrade runs as a job


def selection(args, user):
    """The instances query of an upgrade's `args`, narrowed to what `user` may change (a source
    they may read selects the blueprints it made)."""
    query = {}
    if args.get("blueprint"):
        query["blueprint"] = args["blueprint"]
    if args.get("source"):
        made = across.made_by_source(sources.readable(args["source"], user))
        query["blueprint"] = {"$in": [one for one in made if query.get("blueprint") in (None, one)]}
    if args.get("profile"):
        query["profile"] = args["profile"]
    owners = None if is_admin(user) else [user["username"], *_acting_teams(user)]
    if args.get("team"):
        owners = [team_scope(args["team"])] if owners is None or team_scope(args["team"]) in owners else []
    if owners is not None:
        query["owner"] = {"$in": owners}
    return query


def _acting_teams(user):
    return [team_scope(team) for team, role in team_roles(user).items() if role in ACTING_ROLES]


def how_many(query):
    """How many instances `query` selects, counted up to one past MOST_AT_ONCE."""
    return instances.counted(query, MOST_AT_ONCE + 1)


def upgrade_each(query, user, rev=None, behind=False, dry_run=False, if_match=None, progress=None):
    """{"results": [...]}: each selected instance's result, oldest first (`if_match`: {id: ETag}
    of instances to upgrade only as they were read)."""
    versions, results = {}, []
    total = instances.counted(query) if progress is not None else None  # a job's, for its progress
    for done, doc in enumerate(instances.selected(query), 1):
        if acts_as_owner(user, doc["owner"]):
            result = _one(doc, user, rev, behind, dry_run, (if_match or {}).get(str(doc["_id"])), versions)
            if result is not None:
                results.append(result)
        if progress is not None:
            progress.step(done, total)
    return {"results": results}


def _one(doc, user, rev, behind, dry_run, expected, versions):
    """The result of upgrading one instance (None: it is not behind, and only those are wanted)."""
    result = {"instance": str(doc["_id"]), "name": doc["name"], "from": doc["blueprintRev"], "to": None}
    result |= {"etag": etag(doc), "diff": "", "added": [], "removed": [], "problems": []}
    try:
        blueprint = _blueprint(doc["blueprint"], user, versions)
        if behind and not is_behind(doc, blueprint["rev"]):
            return None
        version = admission.version_of(blueprint, rev)
        result["to"] = version["rev"]
        if version["rev"] == doc["blueprintRev"]:
            return {**result, "outcome": "unchanged"}
        if expected is not None and expected != result["etag"]:
            return {**result, "outcome": "failed", "problems": ["It changed since it was read (If-Match)."]}
        upgraded, diff = admission.upgrade_instance(doc, user, version, {}, dry_run)
    except admission.Moved as exc:
        return {**result, "outcome": "failed", "problems": [exc.detail]}
    except NoRoom as exc:
        return {**result, "outcome": "refused", "problems": [exc.detail], **exc.members}
    except Problem as exc:
        return {**result, "outcome": "refused", "problems": _problems(exc)}
    added, removed = _parts(doc, upgraded)
    parameters = _parameters(doc, version)
    etag_now = result["etag"] if dry_run else etag(upgraded)
    return {
        **result,
        "etag": etag_now,
        "outcome": "upgraded",
        "diff": diff,
        "added": added,
        "removed": removed,
        "parameters": parameters,
    }


def _blueprint(blueprint_id, user, versions):
    """The blueprint an instance was made from, read once an upgrade (a 404 if the caller may not)."""
    if blueprint_id not in versions:
        try:
            versions[blueprint_id] = blueprints.readable(blueprint_id, user)
        except NotFound as exc:
            versions[blueprint_id] = exc
    if isinstance(versions[blueprint_id], Problem):
        raise versions[blueprint_id]
    return versions[blueprint_id]


def _problems(exc):
    if exc.errors:
        return [f"{place}: {message}" for place, messages in exc.errors.items() for message in messages]
    return [exc.detail or str(exc)]


def _parts(before, after):
    """(added, removed): the services (Compose) or `Kind/name` objects (Kubernetes) of the two
    renderings that only one holds."""
    old, new = _named_parts(before), _named_parts(after)
    return sorted(new - old), sorted(old - new)


def _named_parts(doc):
    try:
        documents = [one for one in yamlguard.load(doc["yml"]) if isinstance(one, dict)]
    except YamlError:
        return set()
    if doc.get("target") == "kubernetes":
        return {f"{one.get('kind')}/{(one.get('metadata') or {}).get('name')}" for one in documents}
    return {str(name) for one in documents for name in (one.get("services") or {})}


def _parameters(doc, version):
    """The parameters the revision adds (with the value each takes: its default, null for a
    secret) and those it drops (named)."""
    declared = (version.get("parameters") or {}).get("properties") or {}
    added = {
        name: None if spec.get("writeOnly") or "x-generate" in spec else spec.get("default")
        for name, spec in declared.items()
        if name not in doc["kept"]
    }
    return {"added": added, "removed": sorted(name for name in doc["kept"] if name not in declared)}
