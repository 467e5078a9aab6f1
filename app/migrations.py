"""Documents stored by an earlier version brought to the present shape, once, before the service
serves: each migration has a number, and the database keeps the last one done (`settings`,
MIGRATED), so a start-up with nothing to do reads one document. Reads assume the present shape.

Every process runs what is pending while it prepares the database (app/__init__.py); gunicorn's
master does it first (`before_serving`), so that workers never boot for minutes, and so does
`flask migrate`. A run walks each collection once, newest first, through its list pager (every
document has the admins' or everyone's plain key, or no keys yet), and writes each document that
needs it once, on the condition of the `rev` it read. Progress goes to the log every BATCH
documents (docs/operations.md, "Upgrading")."""

import itertools
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

from bson import ObjectId
from pymongo import MongoClient
from pymongo.errors import ConnectionFailure

from app import definitions
from app.blueprints.history.storage import store as history
from app.blueprints.storage import store as blueprints
from app.definitions import kubernetes
from app.definitions.render import own_target
from app.errors import Invalid, NotFound
from app.instances.hosts import held
from app.instances.hosts import store as hosts
from app.instances.namespaces import store as namespaces
from app.instances.storage import store as instances
from app.model import yamlguard
from app.profiles.schemas import ClusterSchema
from app.profiles.storage import store as profiles
from app.storage import list_keys
from app.storage.database import get_db, raise_setting, setting

log = logging.getLogger(__name__)
MIGRATED = "migrated"  # the settings document holding the number of the last migration done
BATCH = 500
LOGGED = 10  # batches between two lines of progress
PROFILE_FIELDS = {"containerDefaults": None, "containerMax": None, "entitledUsers": []}
CLUSTER_NAMES = ("storageClass", "imagePullSecrets", "ingressClass", "gateway", "tlsIssuer", "domain")
EVERY_DOCUMENT = list_keys.ListQuery(
    ({list_keys.FIELD: list_keys.ADMINS}, {list_keys.FIELD: list_keys.EVERYONE}, {list_keys.FIELD: None}),
    lambda doc: True,
    plain=False,
    with_keys=True,  # keys that are right stay; a write is conditional on them (a star changes them)
)


@dataclass(frozen=True)
class Migration:
    """Migration `number`: `change(store, doc)` gives the fields to set on a document of one of
    `stores` stored before it ({} when it has them)."""

    number: int
    what: str
    stores: tuple
    change: Callable[[object, dict], dict]


def _last_writer(store, doc):
    return {} if "updatedBy" in doc else {"updatedBy": doc["owner"]}


def _requirements(store, doc):
    """Requirements container by container (`perContainer`); null where the definition is not
    valid for its format (it was stored before it was checked)."""
    stored = doc.get("requirements")
    if "requirements" in doc and (stored is None or "perContainer" in stored):
        return {}
    try:
        found = definitions.requirements(doc.get("blueprintType"), doc.get("yml"), doc.get("parameters"))
    except (Invalid, yamlguard.YamlError):
        found = None
    return {"requirements": found}


def _profile_fields(store, doc):
    return {field: value for field, value in PROFILE_FIELDS.items() if field not in doc}


def _ledger(store, doc):
    return store.keep_apart(doc)


def _keys(store, doc):
    return store.rekeyed(doc, {})


def _secrets(store, doc):
    blueprint = blueprints.stored(ObjectId(doc["blueprint"]))
    try:
        version = history.version(blueprint, doc["blueprintRev"]) if blueprint else None
    except NotFound:  # that revision is gone: nothing tells which value was generated
        version = None
    return store.secrets_hidden(doc, version)


def _target(store, doc):
    """What an instance was rendered for: its blueprint's own format (every instance was, before
    an instance could target Kubernetes); one whose blueprint is gone, by what its definition is."""
    if "target" in doc:
        return {}
    blueprint = blueprints.stored(ObjectId(doc["blueprint"]))
    if blueprint is not None:
        return {"target": own_target(blueprint.get("blueprintType"))}
    return {"target": "kubernetes" if "apiVersion:" in (doc.get("yml") or "") else "compose"}


def _pod_security(store, doc):
    """Blueprints' pod security findings, measured again; profiles that existed keep admitting
    what they admitted (`privileged`, no kinds beyond the measured ones)."""
    if store is profiles:
        return {} if "podSecurity" in doc else {"podSecurity": "privileged", "allowKinds": []}
    return _measured_again(store, doc, "podSecurity")


def _namespace(store, doc):
    """The namespace an instance on Kubernetes was rendered into (a converted Compose blueprint's
    is its name, held from now on where no other instance holds it first; a Kubernetes
    blueprint's has none until an upgrade gives one)."""
    if "namespace" in doc:
        return {}
    converted = doc.get("target") == "kubernetes" and "kind: Namespace" in (doc.get("yml") or "")
    if converted and namespaces.held_for(doc["name"], doc["owner"], doc["_id"]):
        return {"namespace": doc["name"]}
    if converted:
        log.warning("instance %s: its namespace %r is held by another instance; it holds none", doc["_id"], doc["name"])
    return {"namespace": None}


def _claims(store, doc):
    """Blueprints' claims on a cluster (and routes), measured again."""
    return _measured_again(store, doc, "claims")


def _measured_again(store, doc, kept):
    """A blueprint's requirements measured again where they lack `kept`."""
    stored = doc.get("requirements")
    if stored is None or kept in stored:
        return {}
    return _requirements(store, {key: value for key, value in doc.items() if key != "requirements"})


def _routes_read_whole(store, doc):
    """Routes read again (a Traefik rule whole, a Kubernetes stream's Ingress and HTTPRoutes): a
    blueprint's requirements measured again; an instance on Kubernetes holds the hosts its stream
    routes, those no other instance holds first (the others logged)."""
    if store is blueprints:
        if doc.get("requirements") is None:
            return {}
        found = _requirements(store, {key: value for key, value in doc.items() if key != "requirements"})
        return {} if found["requirements"] == doc["requirements"] else found
    if doc.get("target") != "kubernetes" or doc.get("hosts"):
        return {}
    try:
        routed = definitions.measure(kubernetes, doc.get("yml") or "")["routes"]
    except (Invalid, yamlguard.YamlError, TypeError):
        return {}
    kept = [key for key in held(routed) if hosts.held_for(key, doc["_id"])]
    if len(kept) < len(held(routed)):
        log.warning("instance %s: a host its stream routes is held by another instance; it holds the rest", doc["_id"])
    return {"hosts": kept} if kept else {}


def _cluster_names(store, doc):
    """A profile's cluster conventions that are no names Kubernetes or a proxy reads, dropped: their
    patterns once held a value's start alone, so `apps.example.com`) || PathPrefix(`/` passed as a
    domain, into every Traefik rule. The profile and its fields are logged, not the values."""
    cluster = doc.get("cluster") or {}
    wrong = ClusterSchema().validate({field: cluster[field] for field in CLUSTER_NAMES if field in cluster})
    if not wrong:
        return {}
    log.warning("profile %s: its cluster's %s held no names; dropped", doc["_id"], ", ".join(sorted(wrong)))
    return {"cluster": {field: value for field, value in cluster.items() if field not in wrong}}


MIGRATIONS = (
    Migration(1, "who made each blueprint's version (updatedBy)", (blueprints,), _last_writer),
    Migration(2, "blueprints' requirements, container by container", (blueprints,), _requirements),
    Migration(3, "profiles' container defaults and maximum, sharing", (profiles,), _profile_fields),
    Migration(4, "what lists find each document by (keys)", (profiles, blueprints, instances), _keys),
    Migration(5, "instances' generated values hidden as secrets", (instances,), _secrets),
    Migration(6, "profiles' usage and ledger in a document of their own", (profiles,), _ledger),
    Migration(7, "what each instance was rendered for (target)", (instances,), _target),
    Migration(8, "pod security: blueprints' findings, profiles' level", (profiles, blueprints), _pod_security),
    Migration(9, "the namespace each instance on Kubernetes holds", (instances,), _namespace),
    Migration(10, "blueprints' claims on a cluster and routes", (blueprints,), _claims),
    Migration(
        11, "routes read whole; the hosts instances on Kubernetes route", (blueprints, instances), _routes_read_whole
    ),
    Migration(12, "blueprints found by the source and key an import gave them", (blueprints,), _keys),
    Migration(13, "profiles' cluster conventions that are no names dropped", (profiles,), _cluster_names),
)
LATEST = MIGRATIONS[-1].number


def mark_current(db):
    """Record that `db` holds documents of the present shape only (written straight into it as
    the service stores them: the benchmarks' seeds)."""
    raise_setting(db, MIGRATED, LATEST)


def done(db):
    """The number of the last migration `db` has had."""
    return setting(db, MIGRATED) or 0


def run():
    """Run what is pending (in an app context, with the pagers prepared); how many migrations ran."""
    last = done(get_db())
    pending = [migration for migration in MIGRATIONS if migration.number > last]
    for store in (profiles, blueprints, instances):
        mine = [migration for migration in pending if store in migration.stores]
        if mine:
            _walk(store, mine)
    if pending:
        mark_current(get_db())
        log.info("migrations: the database is at %d", LATEST)
    return len(pending)


def _walk(store, migrations):
    """Each document of `store` through `migrations`, written where one changes it."""
    names = "; ".join(f"{migration.number}: {migration.what}" for migration in migrations)
    log.info("migrating %s (%s)", store.collection, names)
    started, examined, written, position = time.monotonic(), 0, 0, None
    pager = store.pager()
    for batches in itertools.count(1):
        batch, position = pager.read(EVERY_DOCUMENT, BATCH, position)
        written += sum(_migrated(store, migrations, doc) for doc in batch)
        examined += len(batch)
        if position is None or batches % LOGGED == 0:
            log.info(
                "migrating %s: %d examined, %d changed, %.0f s",
                store.collection,
                examined,
                written,
                time.monotonic() - started,
            )
        if position is None:
            return


def _migrated(store, migrations, doc):
    """Whether `doc` needed a change, written on the condition that it is still the version read,
    its `rev` and its keys as a change's is (else read again: a process of the earlier version may
    still be writing, and a star changes the keys alone)."""
    while doc is not None:
        changes = {}
        for migration in migrations:
            changes.update(migration.change(store, {**doc, **changes}))
        if not changes:
            return False
        if store.reshape(doc, changes):
            return True
        doc = store.stored(doc["_id"])
    return False


def before_serving(mongo_uri, settings):
    """gunicorn's master, before its workers: what is pending, so that no worker boots for minutes
    (gunicorn kills a worker that takes longer than its timeout to boot). Nothing to do costs one
    read; a database that cannot be reached is left to the workers' preparation."""
    client = MongoClient(mongo_uri, serverSelectionTimeoutMS=settings["MONGO_TIMEOUT_MS"], tz_aware=True)
    try:
        if done(client[settings["MONGO_DB"]]) < LATEST:
            from app import create_app  # the whole app: its pagers walk, its stores write

            create_app(mongo_client=client)
    except ConnectionFailure:
        log.warning("migrations: the database cannot be reached; the workers will run them")
    finally:
        client.close()
