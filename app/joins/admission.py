"""Instances admitted against their profile's room and counted in its usage.

A create, an upgrade and a rollback are planned first (`Plan`: the render, the diff, the change of
usage, the namespace and hosts to hold, the decisive write); a dry run answers the plan once
`checked`, a real run is the plan `applied`. Every write that changes what an instance needs
(create, upgrade, delete) runs inside a `reservation` (holds.py): the change is reserved on the
profile (its ledger, app/profiles/storage.py), the instance is written, and the reservation is
settled, or taken back when the write was refused. The embedded server has no multi-document
transactions, so these are three writes; a request that dies between them leaves its entry, which
the profile store concludes by what the instance says once the request cannot be running any more
(docs/instances.md, "Admitted and counted")."""

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from flask import current_app
from pymongo.errors import DuplicateKeyError

from app.blueprints.history.storage import store as history
from app.blueprints.storage import store as blueprints
from app.definitions import diffs, render, routes, templates
from app.errors import Conflict, Forbidden, Invalid, NotFound
from app.instances import releases
from app.instances.hosts import held as held_hosts
from app.instances.hosts import refused as refused_host
from app.instances.hosts import store as hosts
from app.instances.namespaces import TAKEN
from app.instances.namespaces import store as namespaces
from app.instances.removals import store as removals
from app.instances.storage import store as instances
from app.joins import delivery, holds, outcomes, to_profile
from app.model.accounts import owner_given, team_of
from app.profiles import usage
from app.profiles.storage import store as profiles
from app.storage.database import afterwards, now
from app.storage.resource_store import MAX_ATTEMPTS, object_id


class Moved(Conflict):
    """The instance changed between the read a write was decided on and the write."""


def admit(fields, user, id=None, dry_run=False):
    """Render the blueprint at its revision with the values and the profile's defaults, and
    admit it in the room the profile has (a 409 `quota` problem otherwise). A name the caller
    has already is refused by the unique index (`one_name_per_owner`); a dry run asks."""
    earlier = id and instances.stored(id)
    if earlier:
        return earlier
    plan = _create(fields, user, id, dry_run)
    if dry_run:
        return checked(plan)[0]
    return _delivered(applied(plan)[0], user)


def _delivered(doc, user):
    """`doc` (just written), its delivery started where it has an environment."""
    return delivery.start(doc, user) if doc.get("environment") else doc


@dataclass(frozen=True)
class Plan:
    """An admission decided and not made: what a dry run answers (`checked`), and what `applied`
    writes under its holds. Deciding it writes nothing."""

    instance: dict  # the instance as it will read
    diff: str | None  # an upgrade's diff of the renderings, no secret value in it
    profile: dict  # read with its usage
    delta: dict  # what it changes the profile's usage by
    entry: dict  # its ledger entry's operation
    namespace: str | None  # a namespace it takes
    hosts: list  # the hosts its routes hold
    before: list  # the hosts it held before
    write: Callable[[], None]  # its decisive write, which raises where it is refused
    taken: Conflict | None = None  # a create's answer where its name is taken


def _create(fields, user, id, dry_run):
    """The plan of a create: the instance drafted from the blueprint and the profile the body names."""
    blueprint = _usable(blueprints, fields["blueprint"], user, "blueprint")
    profile = _usable(profiles, fields["profile"], user, "profile")
    fields = {**fields, "owner": owner_given(user, fields.get("owner"))}
    doc = instances.drafted(_instance(fields, blueprint, profile), user, id, dry_run)
    doc.update(releases.first(doc))
    owner = "You have" if doc["owner"] == user["username"] else f"{doc['owner']} has"
    taken = Conflict(f"{owner} an instance named {doc['name']!r} already.")
    delta, entry = usage.change(doc["requirements"]), {"op": "create"}
    write = partial(_insert, doc, taken)
    return Plan(doc, None, profile, delta, entry, doc["namespace"], doc["hosts"], [], write, taken)


def checked(plan):
    """A dry run's answer, (the instance, the diff), once nothing a write would meet refuses it: its
    name, its namespace and its hosts free (read, not held)."""
    doc = plan.instance
    if plan.taken is not None and instances.named(doc["owner"], doc["name"]):
        raise plan.taken
    if plan.taken is not None and doc.get("environment") and instances.in_environment(doc["environment"], doc["name"]):
        raise _project_held(doc)
    if plan.taken is not None and doc.get("environment") and removals.holds(doc["environment"], doc["name"]):
        raise _project_going(doc)
    if plan.namespace is not None and not namespaces.free_for(plan.namespace, doc["owner"]):
        raise Conflict(TAKEN.format(plan.namespace))
    if taken := hosts.taken(plan.hosts, doc.get("_id")):
        raise refused_host(taken)
    return doc, plan.diff


def applied(plan):
    """Make `plan`: its namespace and new hosts held, its change reserved on the profile, its write
    made, then the hosts it no longer routes let go; (the instance, the diff)."""
    doc = plan.instance
    with (
        holds.holding(plan.namespace, doc["owner"], doc["_id"]),
        holds.routing([key for key in plan.hosts if key not in plan.before], doc["_id"]),
        holds.reservation(plan.profile, doc["_id"], plan.delta, plan.entry),
    ):
        plan.write()
    afterwards(hosts.free, [key for key in plan.before if key not in plan.hosts], doc["_id"])
    return doc, plan.diff


def _insert(doc, taken):
    """A create's decisive write; `taken` where the name is (surely not inserted: taken back). A
    project being taken down is a 409 (its removal is held before its instance goes: one of the two
    is always found)."""
    if doc.get("environment") and removals.holds(doc["environment"], doc["name"]):
        raise _project_going(doc)
    try:
        outcomes.decided(lambda: instances.insert(doc), lambda: instances.holds(doc["_id"]), "create")
    except DuplicateKeyError:
        if doc.get("environment") and not instances.named(doc["owner"], doc["name"]):
            raise _project_held(doc) from None
        raise taken from None


def _project_held(doc):
    """The 409 of a name another instance of the environment has (a Compose project is named after its instance)."""
    held = f"An instance named {doc['name']!r} runs in the environment {doc['environment']!r} already"
    return Conflict(f"{held}: a project name is held per environment, whoever owns it.")


def _project_going(doc):
    """The 409 of a name whose project the environment is still taking down."""
    going = f"The project {doc['name']!r} is still being taken down in the environment {doc['environment']!r}"
    return Conflict(f"{going}: try again once it is gone.")


def _instance(fields, blueprint, profile):
    """The instance a create's `fields` make: the blueprint rendered at its revision for its
    target (on Kubernetes, in the namespace it holds) and admitted in the profile's room."""
    version = version_of(blueprint, fields.get("blueprintRev"))
    target = {key: fields[key] for key in ("target", "volumeSize", "volumeSizes", "routes") if key in fields}
    environment = fields.get("environment") and delivery.destination(
        fields["environment"], profile, target.get("target")
    )
    if environment:
        target["target"] = delivery.TARGETS[environment["kind"]]
    target.setdefault("target", render.own_target(version.get("blueprintType")))
    namespace = None
    if target["target"] == "kubernetes":
        namespace = fields.get("namespace") or fields["name"]
        to_profile.refuse_reserved(namespace)
    held = namespace, team_of(fields["owner"])
    cluster = to_profile.cluster_for(version.get("blueprintType"), target, fields["name"], held)
    room = to_profile.delivered_to(profile, environment)
    answer = _admitted(version, fields["values"], room, fields["name"], cluster=cluster, namespace=held)
    return {
        "owner": fields["owner"],
        "name": fields["name"],
        "namespace": namespace,
        "blueprint": str(blueprint["_id"]),
        "blueprintRev": version["rev"],
        "profile": str(profile["_id"]),
        "profileOwner": profile["owner"],
        **target,
        **_rendered(answer, environment),
        **(delivery.admitted(environment, fields["name"]) if environment else {}),
    }


def _rendered(answer, environment=None):
    """What an instance keeps of its render, and the hosts its routes hold (delivered to an
    `environment`, a document: once its engine would run it, with the host ports it publishes there)."""
    published = delivery.refuse_what_the_engine_would(answer, environment) if environment else []
    return {
        "values": answer["values"],
        "kept": answer["used"],
        "requirements": answer["requirements"],
        "yml": answer["yml"],
        "hosts": held_hosts(answer["requirements"].get("routes", ())) + published,
    }


def rollback(id_text, user, number, if_match=None):
    """Restore release `number`: its revision and its values (generated ones as generated then),
    admitted as an upgrade is; the new release and the diff."""
    release = releases.one(instances.readable(id_text, user), number)
    return upgrade(id_text, user, release["rev"], release["kept"], if_match, restoring=True)


def upgrade(id_text, user, rev, values, if_match=None, dry_run=False, namespace=None, restoring=False):
    """Render again at `rev` (the blueprint's current one when None) with the kept values and
    those given (`restoring`: those alone), admit the difference; the new version and the diff
    of the definitions. An instance on Kubernetes admitted before instances held namespaces takes
    `namespace`."""
    doc = instances.checked(id_text, user, if_match)
    version = version_of(blueprints.readable(doc["blueprint"], user), rev)
    return upgrade_instance(doc, user, version, values, dry_run, namespace, restoring)


def upgrade_instance(doc, user, version, values, dry_run=False, namespace=None, restoring=False):
    """`upgrade` of the instance `doc` as read (one the caller may change) to the blueprint's
    `version`."""
    plan = _upgrade(doc, user, version, values, namespace, restoring)
    if dry_run:
        return checked(plan)
    upgraded, diff = applied(plan)
    return _delivered(upgraded, user), diff


def _upgrade(doc, user, version, values, namespace, restoring):
    """The plan of an upgrade: `doc` rendered again at `version`, and the diff."""
    profile = profiles.with_usage(object_id(doc["profile"]))
    held = doc.get("namespace")
    _may_take(doc, namespace)
    namespaced = held or namespace, team_of(doc["owner"])
    cluster = to_profile.cluster_for(version.get("blueprintType"), doc, doc["name"], namespaced)
    declared = ((version.get("parameters") or {}).get("properties") or {}).keys()
    secrets = [name for name, value in doc["values"].items() if value is None and doc["kept"].get(name) is not None]
    kept = dict(values) if restoring else {**_still_declared(doc["kept"], declared), **values}
    environment = doc.get("environment") and delivery.environment_of(doc)
    room = to_profile.delivered_to(profile, environment)
    answer = _admitted(version, kept, room, doc["name"], doc["requirements"], cluster, secrets, namespaced)
    changes = {
        "blueprintRev": version["rev"],
        **_rendered(answer, environment),
        "namespace": held or namespace,
        "updatedBy": user["username"],
        "updatedAt": now(),
    }
    changes.update(releases.added(doc, changes))
    if doc.get("environment"):
        changes["delivery"] = delivery.pending(changes["release"])
    hidden = [*(doc["kept"].get(name) for name in secrets), *_secret_values(answer)]
    diff = _diff(doc["yml"], answer["yml"], doc["blueprintRev"], version["rev"], hidden)
    delta = usage.change(answer["requirements"], doc["requirements"])
    entry = {"op": "upgrade", "rev": doc["rev"] + 1}
    instance = {**doc, **changes, "rev": doc["rev"] + 1}
    return Plan(
        instance,
        diff,
        profile,
        delta,
        entry,
        namespace,
        changes["hosts"],
        doc.get("hosts", []),
        partial(_replace, doc, changes),
    )


def _may_take(doc, namespace):
    """A 422 unless the instance `doc` may take `namespace` (None: it takes none): one on
    Kubernetes admitted before instances held namespaces, and not one the cluster keeps."""
    if namespace is None:
        return
    if doc.get("namespace") is not None or doc["target"] != "kubernetes":
        raise Invalid({"namespace": ["Only an instance on Kubernetes that holds no namespace yet takes one."]})
    to_profile.refuse_reserved(namespace)


def _replace(doc, changes):
    """An upgrade's decisive write: `changes` over the instance's version `doc`, refused (`Moved`)
    where it moved on since."""
    written = {"rev": doc["rev"] + 1, "updatedAt": changes["updatedAt"]}
    if not outcomes.decided(
        lambda: instances.replace_version(doc, changes), lambda: instances.holds(doc["_id"], written), "upgrade"
    ):
        raise Moved("The instance changed while it was upgraded: read it and try again.")


def _still_declared(kept, declared):
    """The kept values of the parameters the revision still declares: one it dropped is named in
    an upgrade's `parameters.removed`, never a value its render refuses."""
    return {name: value for name, value in kept.items() if name in declared}


def _diff(before, after, rev_before, rev_after, secrets):
    """The unified diff of two renderings, named by their revisions, no secret value in it."""
    texts = [templates.as_text(value) for value in secrets if value is not None]
    return diffs.unified(before, after, (f"rev {rev_before}", f"rev {rev_after}"), texts)


def _secret_values(answer):
    """The values of a render that are secret (shown as null)."""
    return [answer["used"].get(name) for name, shown in answer["values"].items() if shown is None]


def withdraw(id_text, user, if_match=None, purge=False):
    """Free its usage and go, on the condition that it is still the version whose requirements
    are given back (decided again when it is not); where it was delivered, its project taken down
    (`purge`: with its named volumes) by a job, which it answers (else None)."""
    for _ in range(MAX_ATTEMPTS):
        doc = instances.checked(id_text, user, if_match)
        profile = profiles.with_usage(object_id(doc["profile"]))
        try:
            with delivery.taken_down(doc, user, purge) as started:
                if profile is None:  # deleted under it (it cannot be while this is counted)
                    if not _delete(doc):
                        raise Moved("upgraded meanwhile")
                else:
                    with holds.reservation(
                        profile, doc["_id"], usage.change(None, doc["requirements"]), {"op": "delete"}
                    ):
                        if not _delete(doc):
                            raise Moved("upgraded meanwhile")
            holds.let_go(doc)
            return started[0] if started else None
        except Moved:
            continue
    raise Conflict("Another change of this instance kept going on: try again.")


def _delete(doc):
    """Delete the instance's version `doc`; whether it did (one moved on since is not)."""
    return outcomes.decided(lambda: instances.delete_version(doc), lambda: not instances.holds(doc["_id"]), "delete")


def _usable(resource_store, id_text, user, field):
    """A blueprint or profile a body names: one the caller may read (else a 422 naming the field)
    and use (a 403: a team's viewers read what it may use)."""
    try:
        doc = resource_store.readable(id_text, user)
    except NotFound as exc:
        raise Invalid({field: [exc.detail]}) from None
    if not resource_store.usable(doc, user):
        raise Forbidden(f"You may read this {field} but not deploy from it: a team's viewers only read.")
    return doc


def version_of(blueprint, rev):
    """The blueprint as it was at `rev` (None: as it is)."""
    if rev is None or rev == blueprint["rev"]:
        return blueprint
    try:
        return history.version(blueprint, rev)
    except NotFound:
        raise Invalid({"rev": [f"The blueprint has no revision {rev}."]}) from None


def _admitted(version, values, profile, name, replacing=None, cluster=None, secrets=(), namespace=(None, None)):
    """The render of `version` for `profile` as the instance `name` (converted for `cluster` where given; in the
    namespace it holds (`namespace`: its name, and the team that owns the instance or None), its Namespace, quota
    and LimitRange first), if the profile has room for
    it (with `replacing`, the requirements it replaces, given back first); else a 409 naming each
    resource short of it. `secrets`: the values that were secret when the instance was admitted
    (shown as null, in the values Secret), which stay so."""
    used = profile["usage"]
    if replacing is not None:
        used = {key: used[key] - value for key, value in usage.change(replacing).items()}
    room = {**profile, "usage": used}
    answer = to_profile.render_fitted(version, values, room, cluster=cluster, secrets=secrets, project=name)
    if answer["requirements"] is None:
        raise Invalid({"blueprint": ["Its definition is of no known type: there is nothing to count."]})
    if cluster is None and namespace[0] is not None:  # a Kubernetes blueprint's objects, moved into the namespace
        kinds = tuple(profile.get("allowKinds") or ())
        ingress = (current_app.config["INGRESS_NAMESPACE"],)
        answer["yml"] = render.in_namespace(answer, namespace, kinds, to_profile.limits_of(profile), ingress)
    routes.admissible(answer["requirements"]["routes"])
    security = answer["fit"]["podSecurity"]
    if security["violations"]:
        level = security["level"]
        raise Invalid(
            {
                "podSecurity": [
                    f"{one['path']}: {one['control']} (the profile holds to {level})" for one in security["violations"]
                ]
            }
        )
    holds.refuse_without_room(answer["fit"], replacing is not None)
    return answer
