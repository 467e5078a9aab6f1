"""What an admission holds while it makes its write: its change reserved on the profile's ledger
(`reservation`), the namespace it takes (`holding`) and the hosts its routes take (`routing`).
Each is given back where the write is refused (`outcomes.refused`); any other failure may have
written, and leaves what was taken to its lease."""

from contextlib import contextmanager

from flask import current_app

from app.config import request_lease
from app.definitions import fit
from app.definitions.fit import RESOURCES
from app.errors import Conflict, NoRoom
from app.instances.hosts import store as hosts
from app.instances.namespaces import store as namespaces
from app.instances.storage import store as instances
from app.joins import outcomes
from app.model import quantities
from app.profiles.storage import store as profiles
from app.storage.database import afterwards
from app.storage.resource_store import MAX_ATTEMPTS, object_id


@contextmanager
def reservation(profile, instance_id, delta, entry):
    """Reserve `delta` on the profile for the write the block makes, then settle it; a write the
    block refuses (a problem it raises, a unique index) is taken back. Any other failure (a lost
    connection, a killed worker) may have written: the entry stays, for `Profiles.settled`."""
    key = str(instance_id)
    recorded = _reserve(profile, key, delta, entry)
    with _given_back_if_refused(profiles.take_back, profile["_id"], key, recorded):
        yield
    afterwards(profiles.settle, profile["_id"], key, recorded)


@contextmanager
def _given_back_if_refused(give_back, *args):
    """The block that makes an instance's decisive write, and `give_back(*args)` (what was taken for
    it) where the block refuses it (`outcomes.refused`); any other failure may have written, and
    leaves what was taken to its lease."""
    try:
        yield
    except Exception as exc:
        if outcomes.refused(exc):
            afterwards(give_back, *args)
        raise


@contextmanager
def holding(namespace, owner, instance_id):
    """Hold `namespace` (None: none) for the instance the block writes, and let it go when the
    block refuses the write; any other failure may have written, and leaves the hold to `_take`'s
    lease."""
    if namespace is None:
        yield
        return
    _take(namespace, owner, instance_id)
    with _given_back_if_refused(namespaces.free, namespace, instance_id):
        yield


def _take(namespace, owner, instance_id):
    """Hold the namespace for the instance; a hold left by a request that died before its
    instance was written is freed once its lease has passed."""
    try:
        namespaces.take(namespace, owner, instance_id)
    except Conflict:
        found = namespaces.holder(namespace)
        lease = request_lease(current_app.config)
        if found is None or instances.stored(object_id(found[0])) is not None:
            raise
        if not namespaces.free_stale(namespace, found[0], lease):
            raise
        namespaces.take(namespace, owner, instance_id)


@contextmanager
def routing(keys, instance_id):
    """Hold the hosts `keys` for the instance the block writes, and let them go when the block
    refuses the write; any other failure leaves them to `Hosts.take`'s lease."""
    lease = request_lease(current_app.config)
    hosts.take(keys, instance_id, lambda id_text: instances.stored(object_id(id_text)), lease)
    with _given_back_if_refused(hosts.free, keys, instance_id):
        yield


def let_go(doc):
    """A deleted instance's namespace, freed for its owner, and its hosts (their leases free them
    where the database is away)."""
    if doc.get("namespace") is not None:
        afterwards(namespaces.free, doc["namespace"], doc["_id"])
    afterwards(hosts.free, doc.get("hosts", []), doc["_id"])


def _reserve(profile, instance_id, delta, entry):
    """Reserve `delta` on the profile for `instance_id`, deciding again while other admissions
    change its usage; a 409 when another took the room."""
    for _ in range(MAX_ATTEMPTS):
        if profile is None:
            raise Conflict("The profile was deleted meanwhile.")
        if recorded := profiles.reserve(profile, instance_id, delta, entry):
            return recorded
        profile = profiles.with_usage(profile["_id"])
        if profile is not None:
            refuse_without_room({"resources": fit.growth(delta, quantities.limits(profile), profile["usage"])})
    raise Conflict("The profile kept changing: try again.")


def refuse_without_room(fit, replacing=False):
    """A 409 naming each resource the fit has no room for: over the cap left, over the maximum per
    container, unbounded or unknown where the profile caps it. An upgrade's says that `used`
    leaves out the instance's own share, which differs from the profile's usage."""
    short, quota = [], {}
    for name, resource in fit["resources"].items():
        capped = resource["cap"] is not None
        if capped:
            quota[name] = {key: resource[key] for key in ("required", "used", "cap", "available")}
        if resource["overMax"]:
            short.append(f"{name}: over the profile's per-container maximum ({'; '.join(resource['overMax'])})")
        elif capped and resource["verdict"] == "exceeds":
            short.append(_shortfall(name, quota[name]))
        elif capped and resource["verdict"] == "unbounded":
            short.append(f"{name}: a container declares none and the profile gives no container default")
        elif capped and resource["verdict"] == "unknown":
            short.append(f"{name}: not known until the variables that stand in it are set")
    if short:
        own = " (used: the profile's other instances; this one's current share is given back first)"
        raise NoRoom(f"The profile has no room for it: {'; '.join(short)}{own if replacing else ''}.", quota)


def _shortfall(name, quota):
    """`memory: requires 1 GiB, 1.5 GiB of 2 GiB used, 512 MiB available`."""
    key, spoken = RESOURCES[name], quantities.spoken
    required, used, cap = quota["required"], quota["used"], quota["cap"]
    return (
        f"{name}: requires {spoken(key, required)}, {spoken(key, used)} of {spoken(key, cap)} used, "
        f"{spoken(key, max(cap - used, 0))} available"
    )
