"""Instances delivered to their environment. An admission, an upgrade, a rollback and a delete
of an instance with an `environment` are written first, as every admission is; the delivery is
then a job (`deliver`): it reads the instance as it is when it runs, so a delivery that starts
late delivers the newest release, never an older one over it, and records its state on the
instance only while the instance is still at the release it delivered. On a Docker Engine the
job runs Compose (environments/docker.py); in a git environment it commits the instance's folder
(gitops.py). A delete's job takes the project down, the project held until it is (`removals`).
Which environment an instance may use, and what its engine would refuse, is decided at admission
(`destination`, `refuse_what_the_engine_would`: the host ports an instance publishes are held per
environment, as hosts are)."""

from contextlib import contextmanager

from bson import ObjectId
from flask import current_app

from app import definitions
from app.definitions import compose
from app.environments import docker, engine
from app.environments.storage import store as environments
from app.errors import Conflict, Invalid
from app.instances import hosts
from app.instances.removals import store as removals
from app.instances.schemas import DeliveryReportSchema
from app.instances.storage import project
from app.instances.storage import store as instances
from app.jobs import runner
from app.joins import gitops
from app.storage import ids
from app.storage.database import now

TARGETS = {"docker": "compose", "git": "kubernetes"}
BEYOND = (
    "On an engine that teams share an instance holds its own project's volumes, networks and containers alone; "
    "this names one beyond it (another project's, as Compose finds it): leave it out (the proxy's network is "
    "joined by the environment's conventions), or ask an admin for a privileged profile."
)


def destination(name, profile, target):
    """The environment `name` an instance of `profile` asks for, once the profile names it, it
    exists and its kind renders for `target` (None: the blueprint's own); a 422 naming the field."""
    if name not in (profile.get("environments") or ()):
        raise Invalid({"environment": [f"The profile's instances may not use {name!r} (its `environments`)."]})
    environment = environments.named(name)
    if environment is None:
        raise Invalid({"environment": [f"No environment is named {name!r}."]})
    wanted = TARGETS[environment["kind"]]
    if target not in (None, wanted):
        raise Invalid({"target": [f"A {environment['kind']} environment runs `{wanted}`."]})
    return environment


def refuse_what_the_engine_would(answer, environment):
    """The keys of the host ports the render publishes in `environment` (held there as hosts are),
    once nothing in it is what a Docker Engine would refuse: a 422 for a service that builds (the
    service builds nothing on an engine) or that publishes more than MOST_PUBLISHED host ports,
    and, unless the profile is `privileged`, for what reaches beyond its project there (another
    project's volumes, networks or containers: `compose`'s measure names them). (A host path
    mounted is a finding of pod security, which refuses it unless the profile is `privileged`.) A
    git environment's cluster is held by the namespace the instance holds: none."""
    if environment["kind"] != "docker":
        return []
    measured = answer["requirements"]  # what the render's own measure found: no second reading
    refused = {
        f"yml.services.{name}.build": ["The service builds nothing on an engine: give an `image`."]
        for name in measured.get("builds", ())
    }
    published = measured.get("published", [])
    if len(published) > compose.MOST_PUBLISHED:
        refused["ports"] = [f"At most {compose.MOST_PUBLISHED} host ports are published by an instance."]
    if ((answer["fit"] or {}).get("podSecurity") or {}).get("level") != "privileged":
        refused |= {f"yml.{place}": [BEYOND] for place in measured.get("shared", ())}
    if refused:
        raise Invalid(refused)
    return hosts.ports_held(environment["name"], published)


def environment_of(doc):
    """The environment the instance `doc` is delivered to (a 409 where it is gone meanwhile)."""
    found = environments.named(doc["environment"])
    if found is None:
        raise Conflict(f"The environment {doc['environment']!r} is gone: the instance can no longer change.")
    return found


def admitted(environment, name):
    """What an instance named `name` admitted into `environment` holds: its environment, its project
    there (held whoever owns it) and its first delivery, pending."""
    return {"environment": environment["name"], "project": project(environment["name"], name), "delivery": pending(1)}


def pending(release):
    """The delivery an admission, upgrade or rollback writes with its instance: `release`, pending,
    by the job whose id it gives out now (queued once the instance is written: one write fewer)."""
    moment = now()
    return {
        "state": "pending",
        "release": release,
        "job": str(ids.new_id(moment)),
        "at": moment,
        "commit": None,
        "error": None,
    }


def start(doc, user):
    """Deliver the instance `doc`, just written, by the job its delivery names; `doc`."""
    _run(doc, user, ObjectId(doc["delivery"]["job"]), recreate=False)
    return doc


def again(doc, user, recreate=False):
    """Deliver the instance `doc` again (an observation's), by a new job. `recreate`: every
    container made again, as a limit changed by hand leaves Compose's own record of the container
    as it was."""
    moment = now()
    job_id = ids.new_id(moment)
    instances.delivered(doc["_id"], doc["release"], {"state": "pending", "job": str(job_id), "at": moment})
    _run(doc, user, job_id, recreate)


@contextmanager
def taken_down(doc, user, purge):
    """The block deletes the instance `doc`: where it was delivered, its project stays held
    meanwhile (`removals`), then a job takes it down (`purge`: its named volumes too), which the
    list it gives holds after the block; a block that fails lets the project go."""
    if not doc.get("environment"):
        yield []
        return
    removal, started = removals.take(doc, purge), []
    try:
        yield started
    except BaseException:
        removals.let_go(removal)
        raise
    started.append(withdraw(removal, user))


def withdraw(removal, user):
    """Take the project of `removal` down by a job, which it answers; the project is let go once
    it is down."""
    work = lambda progress: _take_down(removal)  # noqa: E731
    return runner.start("deliver", user, removal["owner"], work, DeliveryReportSchema())


def withdraw_again(removal, user):
    """Take the project of `removal` down again (an observation's)."""
    removals.again(removal)
    withdraw(removal, user)


def _run(doc, user, job_id, recreate):
    work = lambda progress: _deliver(doc["_id"], doc["environment"], doc["name"], recreate)  # noqa: E731
    runner.start("deliver", user, doc["owner"], work, DeliveryReportSchema(), id=job_id)


def _deliver(instance_id, environment_name, project, recreate):
    """`up` of the instance as it reads now, its delivery's state written as it goes, with the
    containers its release declares (what an observation holds the engine's against)."""
    doc = instances.stored(instance_id)
    if doc is None:  # deleted meanwhile: its delete's job takes the project down
        return {"instance": str(instance_id), "release": None, "state": "gone", "error": None}
    release, state, error, failures, commit = doc["release"], "applied", None, 0, None
    try:
        environment = _environment(environment_name)
        if environment["kind"] == "git":
            instances.delivered(instance_id, release, {"state": "applying", "at": now(), "error": None})
            by = doc.get("updatedBy") or doc["owner"]
            commit = gitops.deliver(
                environment, doc["namespace"], doc["yml"], f"{doc['name']} release {release} by {by}"
            )
        else:
            _up(doc, environment, project, recreate)
    except (docker.Failed, engine.Unreachable, gitops.Refused) as exc:
        state, error, failures = "failed", without_secrets(str(exc), doc), doc["delivery"].get("failures", 0) + 1
    done = {"state": state, "at": now(), "error": error, "failures": failures, "commit": commit}
    instances.delivered(instance_id, release, done)
    return {"instance": str(instance_id), "release": release, "state": state, "error": error}


def _up(doc, environment, project, recreate):
    """Compose's `up` of the instance on a Docker Engine, the containers its release declares
    recorded first (what an observation holds the engine's against)."""
    declared = definitions.measure(compose, doc["yml"])["perContainer"]
    admitted = [{key: entry.get(key) for key in ("name", "count", "memory", "cpu")} for entry in declared]
    instances.delivered(
        doc["_id"], doc["release"], {"state": "applying", "at": now(), "error": None, "admitted": admitted}
    )
    docker.up(environment, project, doc["yml"], current_app.config["DELIVERY_SECONDS"], recreate)
    if recreate:
        engine.remove_strays(environment, project, {entry["name"] for entry in admitted})


def without_secrets(text, doc):
    """`text` (Compose's words, which may quote the file) with every secret value of the instance
    hidden: its readers who may not read its definition read its delivery's error."""
    secrets = [doc["kept"].get(name) for name, shown in doc["values"].items() if shown is None]
    for value in sorted((str(one) for one in secrets if one not in (None, "")), key=len, reverse=True):
        text = text.replace(value, "***")
    return text


def _take_down(removal):
    report = {"instance": removal["instance"], "release": None, "state": "removed", "error": None}
    try:
        environment = _environment(removal["environment"])
        if environment["kind"] == "git":
            gitops.remove(environment, removal["namespace"], f"{removal['name']} removed")
        else:
            docker.down(environment, removal["name"], current_app.config["DELIVERY_SECONDS"], removal["purge"])
    except (docker.Failed, gitops.Refused) as exc:
        removals.failed(removal, str(exc))
        return {**report, "state": "failed", "error": str(exc)}
    removals.let_go(removal)
    return report


def _environment(name):
    found = environments.named(name)
    if found is None:
        raise docker.Failed(f"The environment {name!r} is gone.")
    return found
