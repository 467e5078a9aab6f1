"""Environments observed: what runs on each engine held against what its instances admitted.

Each environment is observed every `interval` by one worker of all (the schedule's conditional
move of `observeAt`): one reading of its engine (environments/engine.py), grouped by Compose
project. Each instance of the environment gets `observed` (its state, services, usage and drift
against the containers its delivered release declares); the environment gets `state` (the
engine, its instances by state, the projects it runs that the service did not deliver); each
profile with instances there gets their observed usage beside what it admitted. Then what needs
delivering again is delivered: a delivery a stopped process left under way, a failed one once its
backoff has passed, and, where the environment heals, a drifted or missing instance; and a deleted
instance's project whose take-down failed or was left under way is taken down again."""

import logging
from datetime import timedelta

from flask import current_app

from app.environments import engine
from app.environments.storage import store as environments
from app.instances.removals import store as removals
from app.instances.storage import store as instances
from app.jobs.storage import lease
from app.joins import delivery, gitops
from app.profiles.storage import store as profiles
from app.storage.database import now

log = logging.getLogger(__name__)
MOST_AT_ONCE = 20
UNDER_WAY = ("pending", "applying")
BACKOFF_MOST = 8  # a failed delivery is tried again after interval x 1, 2, 4, then 8 at most
AMOUNTS = ("containers", "memoryBytes", "cpuMillis")


def run_due():
    """Observe each due environment this worker moves on; how many it observed."""
    observed, moment = 0, now()
    for doc in environments.due(moment, MOST_AT_ONCE):
        if environments.scheduled(doc, moment):
            observe(doc)
            observed += 1
    return observed


def observe(environment):
    """Observe `environment` once: its instances, its state, its profiles' observed usage; then
    deliver again what needs it. The engine or the repository away: the environment says why,
    and what failed is still tried again."""
    moment, git = now(), environment["kind"] == "git"
    docs = instances.of_environment(environment["name"], definitions=git)
    going = removals.of_environment(environment["name"])
    try:
        found, state = (_read_repository if git else _read_engine)(environment, docs, going, moment)
    except (engine.Unreachable, gitops.Refused) as exc:
        found = {}
        state = {
            "reachable": False,
            "error": str(exc),
            "engine": None,
            "unmanaged": [],
            **({"commit": None} if git else {}),
        }
    else:
        instances.observed(found)
    environments.observed(environment["_id"], {"at": moment, **state, "instances": _by_state(docs, found, going)})
    _deliver_again(environment, docs, found, going, moment)


def _read_engine(environment, docs, going, moment):
    """({instance id: observed}, the environment's state) of one reading of a Docker Engine; the
    profiles' observed usage written."""
    seen = engine.listing(environment)
    projects = {}
    for container in seen["containers"]:
        projects.setdefault(container["project"], []).append(container)
    found = {doc["_id"]: of_instance(doc, projects.pop(doc["name"], []), seen["engine"], moment) for doc in docs}
    for removal in going:  # coming down: not unmanaged
        projects.pop(removal["name"], None)
    profiles.observed(environment["name"], _by_profile(docs, found))
    unmanaged = [{"project": name, "containers": sorted(held, key=_named)} for name, held in sorted(projects.items())]
    return found, {"reachable": True, "error": None, "engine": seen["engine"], "unmanaged": unmanaged}


def _read_repository(environment, docs, going, moment):
    """({instance id: observed}, the environment's state) of one reading of a git environment's
    branch: each instance's folder held against the files its release writes (drift: a file
    changed, removed or added by hand), the folders no instance holds."""
    head, folders = gitops.read(environment)
    found = {}
    for doc in docs:
        there = folders.pop(doc["namespace"], None)
        drift = [] if there is None else _changed_files(doc["namespace"], gitops.files_of(doc["yml"]), there)
        state = "running" if there is not None and not drift else "drifted" if drift else "missing"
        if there is None and doc["delivery"]["state"] in UNDER_WAY:
            state = "starting"
        found[doc["_id"]] = {
            "at": moment,
            "state": state,
            "services": [],
            "usage": None,
            "drift": drift,
            "commit": head,
        }
    for removal in going:
        folders.pop(removal.get("namespace"), None)
    unmanaged = [{"folder": name, "files": sorted(files)} for name, files in sorted(folders.items())]
    return found, {"reachable": True, "error": None, "engine": None, "commit": head, "unmanaged": unmanaged}


def _changed_files(namespace, admitted, there):
    """The files of an instance's folder that differ from what its release writes (`sha256:` digests)."""
    return [
        {"path": f"{namespace}/{name}", "admitted": _digest(admitted.get(name)), "observed": _digest(there.get(name))}
        for name in sorted(admitted.keys() | there.keys())
        if admitted.get(name) != there.get(name)
    ]


def _digest(text):
    return None if text is None else gitops.digest(text)


def of_instance(doc, containers, engine_size, moment):
    """An instance's `observed`: its services as the engine runs them, their usage, and what runs
    beyond or beside the containers its delivered release declares (`drift`)."""
    admitted = {entry["name"]: entry for entry in doc["delivery"].get("admitted") or []}
    services, drift, by_service = [], [], {}
    for container in containers:
        by_service.setdefault(container["service"], []).append(container)
    whole = {"memoryBytes": engine_size["memoryBytes"], "cpuMillis": (engine_size["cpus"] or 0) * 1000}
    for name in sorted(set(admitted) | set(by_service), key=str):
        held = sorted(by_service.get(name, []), key=_named)
        running = [one for one in held if one["state"] == "running"]
        service = {
            "name": name,
            "containers": len(held),
            "running": len(running),
            "healthy": sum(one["health"] in (None, "healthy") for one in running),
            # a container without a limit may take the whole engine: that is what it holds
            **{key: sum(one[key] or whole[key] or 0 for one in running) for key in ("memoryBytes", "cpuMillis")},
        }
        services.append(service)
        drift += _drift(name, admitted.get(name), held)
    usage = {
        key: sum(service[key] if key != "containers" else service["running"] for service in services) for key in AMOUNTS
    }
    return {
        "at": moment,
        "state": _state(doc, admitted, services, drift, containers),
        "services": services,
        "usage": usage,
        "drift": drift,
    }


def _drift(name, admitted, held):
    """What the service's containers run beyond or beside what its release declares."""
    if admitted is None:
        return [{"path": f"services.{name}", "admitted": None, "observed": {"containers": len(held)}}]
    found = []
    if isinstance(admitted["count"], int) and len(held) > admitted["count"]:
        found.append({"path": f"services.{name}.containers", "admitted": admitted["count"], "observed": len(held)})
    for key, declared in (("memoryBytes", admitted.get("memory")), ("cpuMillis", admitted.get("cpu"))):
        declared = declared if isinstance(declared, int) else None
        for one in held:
            if one[key] != declared:
                where = f"services.{name}.{key}"
                found.append({"path": where, "admitted": declared, "observed": one[key], "container": one["name"]})
                break
    return found


def _state(doc, admitted, services, drift, containers):
    if not containers:
        return "starting" if doc["delivery"]["state"] in UNDER_WAY else "missing"
    if drift:
        return "drifted"
    if not any(service["running"] for service in services):
        return "stopped"
    if any(one["health"] == "starting" for one in containers):
        return "starting"
    short = any(service["running"] < (admitted.get(service["name"]) or {}).get("count", 0) for service in services)
    if short or any(service["healthy"] < service["containers"] for service in services):
        return "degraded"
    return "running"


def _by_state(docs, found, going):
    """{state: count} of the environment's instances: a delivery not applied, else what was
    observed; and the deleted ones still being taken down (`removing`)."""
    counts = {"removing": len(going)} if going else {}
    for doc in docs:
        state = doc["delivery"]["state"]
        if state == "applied":
            state = found[doc["_id"]]["state"] if doc["_id"] in found else "unobserved"
        counts[state] = counts.get(state, 0) + 1
    return counts


def _by_profile(docs, found):
    """{profile id: the observed usage of its instances here, summed}."""
    sums = {}
    for doc in docs:
        spent = sums.setdefault(doc["profile"], dict.fromkeys(AMOUNTS, 0))
        for key in AMOUNTS:
            spent[key] += found[doc["_id"]]["usage"][key]
    return sums


def _deliver_again(environment, docs, found, going, moment):
    """Deliver again each instance whose delivery a stopped process left under way, whose failed
    delivery's backoff has passed, or (where the environment heals) that drifted or went missing;
    take down again each deleted one whose take-down did so."""
    due = _due(environment, moment)
    for doc in docs:
        observed = found.get(doc["_id"], {}).get("state")
        healed = (
            doc["delivery"]["state"] == "applied" and environment.get("heal") and observed in ("drifted", "missing")
        )
        if healed or due(doc["delivery"]):
            log.info("environment %s: delivering %s again (%s)", environment["name"], doc["name"], observed)
            delivery.again(doc, {"username": doc["owner"]}, recreate=observed == "drifted")
    for removal in going:
        if due(removal):
            log.info("environment %s: taking %s down again", environment["name"], removal["name"])
            delivery.withdraw_again(removal, {"username": removal["owner"]})


def _due(environment, moment):
    """Whether a delivery or a take-down (`state`, `at`, `failures`) is to run again: one a stopped
    process left under way, or a failed one once its backoff (interval x 1, 2, 4, then 8) passed."""
    interval = timedelta(seconds=environment["interval"])
    stale = timedelta(seconds=current_app.config["DELIVERY_SECONDS"]) + lease()

    def due(attempt):
        state, failures = attempt["state"], attempt.get("failures", 0)
        if state in (*UNDER_WAY, "removing"):
            return moment - attempt["at"] > stale
        backoff = interval * min(2 ** max(failures - 1, 0), BACKOFF_MOST)
        return state == "failed" and moment - attempt["at"] >= backoff

    return due


def _named(container):
    return container["name"]
