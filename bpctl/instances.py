"""deploy, instances, upgrade, undeploy, usage: instances admitted against a profile's room, their
rendered definition written to standard output and nothing else (exit 1, with the shortfall on
standard error, when the profile has no room)."""

import contextlib
import sys

import click
import whatthepatch

from bpctl import fleet, jobs, show, values
from bpctl.common import FOR_TEAM, OUTPUT, TARGET, cli, given, note, pass_session
from bpctl.errors import Misused, Refused
from bpctl.names import named, source_of

SETTINGS = (
    click.option("--set", "settings", multiple=True, metavar="NAME=VALUE", help="A value (repeat; the last wins)."),
    click.option("-f", "--values", "files", type=click.File("r"), multiple=True, help="A YAML file of values."),
    click.option("--rev", type=click.IntRange(1), help="Render this revision of the blueprint."),
)


def with_settings(command):
    for option in reversed(SETTINGS):
        command = option(command)
    return command


@contextlib.contextmanager
def room_or_exit():
    """A refusal for want of room is "does not fit": exit 1, the shortfall on standard error."""
    try:
        yield
    except Refused as exc:
        if exc.status != 409 or "quota" not in exc.problem:
            raise
        note(exc.problem["detail"])
        show.table(
            [{"resource": name, **room} for name, room in exc.problem["quota"].items()],
            {"RESOURCE": "resource", **{heading: show.amount_of(key) for heading, key in show.ROOM.items()}},
            err=True,
        )
        sys.exit(1)


def _parameters(session, blueprint, rev):
    version = session.get(f"/blueprints/{blueprint['id']}/revisions/{rev}") if rev else blueprint
    return (version.get("parameters") or {}).get("properties", {})


def _kept(session, instance):
    """The instance's rendered definition as kept, bytes."""
    return session.request("GET", f"/instances/{instance['id']}/yml").content


def _definition(session, instance):
    """The instance's rendered definition, byte for byte, to standard output."""
    click.echo(_kept(session, instance), nl=False)  # bytes: written as they came


def _patched(kept, diff):
    """The definition a dry run's `diff` (a unified diff of the kept one) leads to; Refused where
    the kept definition changed meanwhile, so that the diff no longer applies."""
    text = kept.decode()
    if not diff:
        return text
    try:
        [patch] = whatthepatch.parse_patch(diff)
        lines = whatthepatch.apply_diff(patch, text.splitlines())
    except (ValueError, whatthepatch.exceptions.WhatThePatchException):
        raise Refused("the instance changed while its upgrade was tried: run it again.") from None
    return "\n".join(lines) + ("\n" if text.endswith("\n") else "")


@cli.command(short_help="Admit an instance; write its definition, nothing else.")
@named("blueprint", "blueprint", then="name")
@click.argument("name", required=False)
@click.option("--profile", required=True, help="The profile it spends from (id or name).")
@with_settings
@FOR_TEAM
@TARGET
@click.option("--namespace", help="With --target kubernetes: the namespace it holds (default: NAME).")
@click.option("--env", "environment", help="Where the service delivers it: one of the profile's environments.")
@click.option("--wait", is_flag=True, help="With --env: follow the delivery until it ends (exit 1 if it fails).")
@pass_session
def deploy(session, blueprint, name, profile, settings, files, rev, owner, target, volume_sizes, namespace, **where):
    """Admit an instance NAME of BLUEPRINT against PROFILE's room and write its rendered
    definition to standard output: `bpctl deploy web shop --profile team | docker compose -p shop
    -f - up -d`. With --env the service delivers it, and standard output says how its delivery
    stands instead. No room: exit 1, the shortfall on standard error, nothing written."""
    found = session.blueprint(blueprint)
    body = {
        **given(owner=owner),
        "name": name,
        "blueprint": found["id"],
        "profile": session.profile(profile)["id"],
        "values": values.gather(files, settings, _parameters(session, found, rev)),
    }
    if rev:
        body["rev"] = rev
    body.update(values.target(target, volume_sizes, namespace=namespace))
    if where["environment"]:
        body["environment"] = where["environment"]
    elif where["wait"]:
        raise Misused("--wait follows a delivery: give --env too.")
    with room_or_exit():
        made = session.send("POST", "/instances", body)
    note(f"{made['name']}: admitted ({made['id']}), rev {made['rev']}")
    for route in made.get("addresses") or []:
        note(f"{made['name']}: answers on {show.route(route)}")
    if not made.get("environment"):
        _definition(session, made)
        return
    if where["wait"]:
        jobs.followed(session, session.get(f"/jobs/{made['delivery']['job']}"), "delivering")
        made = session.get(f"/instances/{made['id']}")
    _delivery_stands(made)


@cli.command(short_help="How your delivered instances stand (exit 1 where one failed or drifted).")
@named("instance", "instance", optional=True)
@OUTPUT
@pass_session
def status(session, instance, output):
    """How INSTANCE's delivery stands (its name or id), or every delivered instance's you may read:
    the environment, the release, its delivery and what its environment's last observation found
    there (running, drifted...); for one instance, each drift below. Exit 1 when one has failed or
    drifted."""
    found = [session.instance(instance)] if instance else list(session.items("/instances"))
    delivered = [one for one in found if one.get("environment")]
    if instance and not delivered:
        raise Refused(f"{found[0]['name']} is delivered nowhere: it was deployed without --env.")
    columns = {
        "NAME": "name",
        "ENVIRONMENT": "environment",
        "RELEASE": lambda one: one["delivery"]["release"],
        "DELIVERY": lambda one: one["delivery"]["state"],
        "OBSERVED": lambda one: (one.get("observed") or {}).get("state", "-"),
        "ERROR": lambda one: (one["delivery"].get("error") or "")[:120],
    }
    show.listed(delivered, columns, output)
    if instance and output != "json":
        for drift in (delivered[0].get("observed") or {}).get("drift", []):
            click.echo(
                f"  drift {drift['path']}: admitted {_held(drift, 'admitted')}, observed {_held(drift, 'observed')}"
            )
    if any(_troubled(one) for one in delivered):
        sys.exit(1)


def _held(drift, key):
    """A drift's amount as a person writes it (`null`: no limit; a service beside the render: its containers)."""
    value, resource = drift[key], {"memoryBytes": "memory", "cpuMillis": "cpu"}.get(drift["path"].rsplit(".", 1)[-1])
    if value is None:
        return "nothing" if key == "admitted" else "no limit"
    if isinstance(value, dict):
        return f"{value['containers']} container(s)"
    return show.amount(resource, value) if resource else str(value)


def _troubled(instance):
    """Whether its delivery failed or what runs drifted from it."""
    return instance["delivery"]["state"] == "failed" or (instance.get("observed") or {}).get("state") == "drifted"


def _delivery_stands(instance):
    """The instance's delivery on standard output; exit 1 where it failed, why on standard error."""
    delivery = instance["delivery"]
    click.echo(f"{instance['name']}: {delivery['state']} in {instance['environment']}, release {delivery['release']}")
    if delivery["state"] == "failed":
        note(delivery["error"])
        sys.exit(1)


@cli.command("instances", short_help="The instances you may read.")
@click.option("--profile", help="Only those spending from this profile (id or name).")
@click.option("--blueprint", help="Only those of this blueprint (id or name).")
@click.option("--behind", is_flag=True, default=None, help="Only those behind their blueprint's current revision.")
@OUTPUT
@pass_session
def list_instances(session, profile, blueprint, behind, output):
    """List the instances you may read, newest first."""
    query = {
        "profile": profile and session.profile(profile)["id"],
        "behind": behind,
        "blueprint": blueprint and session.blueprint(blueprint)["id"],
    }
    items = list(session.items("/instances", query))
    if output == "json":
        show.as_json(items)
        return
    read = _referenced(session, items)
    show.table(
        items,
        {
            "NAME": "name",
            "REV": "rev",
            "TARGET": "target",
            "BLUEPRINT": lambda i: read[i["blueprint"]]["name"],
            "PROFILE": lambda i: read[i["profile"]]["name"],
            "MEMORY": lambda i: show.amount("memory", i["requirements"]["memoryBytes"]),
            "CPU": lambda i: show.amount("cpu", i["requirements"]["cpuMillis"]),
            "CONTAINERS": lambda i: i["requirements"]["containers"],
            "STORAGE": lambda i: show.amount("storage", i["requirements"]["storageBytes"]),
            "OWNER": "owner",
            "SOURCE": lambda i: source_of(read[i["blueprint"]]),
        },
    )


def _referenced(session, items):
    """{id: the blueprint or profile} of those instances name, each read once ({} where the caller
    may no longer read it), with its `name` (else its id)."""
    found = {}
    for field, collection in (("blueprint", "blueprints"), ("profile", "profiles")):
        for id_text in {item[field] for item in items}:
            try:
                found[id_text] = session.get(f"/{collection}/{id_text}")
            except Refused:
                found[id_text] = {}
            found[id_text]["name"] = found[id_text].get("name") or id_text
    return found


@cli.group()
def instance():
    """One instance: what it is, and its rendered definition as kept."""


@instance.command("get")
@named("name", "instance")
@OUTPUT
@pass_session
def get_instance(session, name, output):
    """Show an instance (its name or id): its blueprint and revision, profile, values, needs."""
    found = session.instance(name)
    if output == "json":
        show.as_json(found)
        return
    names = {id_text: read["name"] for id_text, read in _referenced(session, [found]).items()}
    needs = found["requirements"]
    show.fields(
        [
            ("id", found["id"]),
            ("name", found["name"]),
            ("blueprint", f"{names[found['blueprint']]} ({found['blueprint']}), revision {found['rev']}"),
            ("profile", f"{names[found['profile']]} ({found['profile']})"),
            ("target", found.get("target")),
            ("values", [f"{key}={'(secret)' if value is None else value}" for key, value in found["values"].items()]),
            ("needs", show.needs(needs)),
            ("owner", found["owner"]),
            ("updated", f"{found['updatedAt']} by {found.get('updatedBy') or found['owner']}"),
        ]
    )


@instance.command("yml")
@named("name", "instance")
@pass_session
def instance_yml(session, name):
    """Write an instance's rendered definition as kept, byte for byte (the same one every time,
    its generated secrets included): `bpctl instance yml shop | docker compose -p shop -f - up -d`."""
    _definition(session, session.instance(name))


@cli.command(short_help="Render an instance (or every one of a selection) again.")
@named("instance", "instance", optional=True)
@with_settings
@click.option("--dry-run", is_flag=True, help="Show the diff and the definition; change nothing.")
@click.option("--behind", is_flag=True, help="Every instance behind its blueprint (with the selection below).")
@click.option("--blueprint", help="Every instance of this blueprint.")
@click.option("--profile", help="Every instance spending from this profile.")
@click.option("--team", help="Every instance this team owns.")
@click.option("--source", help="Every instance of the blueprints this source made.")
@OUTPUT
@pass_session
def upgrade(session, instance, settings, files, rev, dry_run, behind, output, **selection):
    """Render INSTANCE (its name or id) again at a revision (default: its blueprint's current one;
    an older one rolls back) with its kept values and those given: the diff goes to standard
    error, the new definition to standard output. No room: exit 1, nothing written.

    Without INSTANCE, upgrade every instance you may change of a selection (--behind, --blueprint,
    --profile, --team, --source), each on its own: a table of what each became (exit 3 when one
    was refused or failed)."""
    if instance is None:
        if not (behind or any(selection.values())):
            raise Misused("name an INSTANCE, or a selection: --behind, --blueprint, --profile, --team, --source.")
        if settings or files:
            raise Misused("--set and -f give one instance's values: name the INSTANCE.")
        return fleet.upgrade_many(session, selection, behind, rev, dry_run, output)
    if behind or any(selection.values()):
        raise Misused("name an INSTANCE or a selection, not both.")
    found = session.instance(instance)
    blueprint = session.get(f"/blueprints/{found['blueprint']}")
    body = {"values": values.gather(files, settings, _parameters(session, blueprint, rev))}
    if rev:
        body["rev"] = rev
    kept = _kept(session, found) if dry_run else None  # the dry run's diff applies to it
    with room_or_exit():
        path = f"/instances/{found['id']}/upgrade"
        upgraded = session.send("POST", path, body, {"dryRun": True} if dry_run else None)
    click.echo(upgraded["diff"] or "(no change)", err=True, nl=not upgraded["diff"])
    if dry_run:
        click.echo(_patched(kept, upgraded["diff"]), nl=False)
        return
    _definition(session, upgraded)


@cli.command(short_help="Delete an instance, freeing its profile's room.")
@named("instance", "instance")
@click.option("--purge", is_flag=True, help="Delivered: remove its named volumes too (its data).")
@click.option("--wait", is_flag=True, help="Delivered: follow its take-down until it ends (exit 1 if it fails).")
@pass_session
def undeploy(session, instance, purge, wait):
    """Delete INSTANCE (its name or id); its profile's usage is freed. Delivered to an environment,
    the service takes it down there (`docker compose down`; --purge: its named volumes too);
    otherwise stop what runs yourself: `docker compose -p NAME down`, or `kubectl delete namespace
    NAME` on a cluster."""
    found = session.instance(instance)
    if (purge or wait) and not found.get("environment"):
        raise Misused("--purge and --wait follow what the service delivered: this instance is delivered nowhere.")
    answer = session.request("DELETE", f"/instances/{found['id']}", params={"purge": "true"} if purge else None)
    note(f"{found['name']}: deleted; its usage is freed")
    if found.get("environment"):
        volumes = "with its named volumes" if purge else "its named volumes kept"
        note(f"It is being taken down in {found['environment']}, {volumes}.")
        monitor = answer.links.get("monitor", {}).get("url", "")
        if wait and monitor:
            job = jobs.followed(session, session.get(f"/jobs/{monitor.rsplit('/', 1)[-1]}"), "taking down")
            if job["report"]["state"] != "removed":
                note(job["report"]["error"])
                sys.exit(1)
            note(f"{found['name']}: taken down in {found['environment']}.")
    elif found.get("namespace"):
        namespace = found["namespace"]
        note(
            f"Its namespace {namespace} is free here, but what was applied stays on the cluster until you remove it: "
            f"`kubectl delete namespace {namespace}`."
        )


@cli.command(short_help="A profile's usage against each cap.")
@click.argument("profile", required=False)
@OUTPUT
@pass_session
def usage(session, profile, output):
    """What PROFILE's instances use against each cap (default: your default profile)."""
    found = session.profile(profile) if profile else session.default_profile()
    if found is None:
        raise Refused("you have no default profile: name one.")
    if output == "json":
        show.as_json(found["usage"])
        return
    rows = [
        {
            "resource": name,
            "used": found["usage"][key],
            "cap": found["limits"][key],
            "available": None if found["limits"][key] is None else found["limits"][key] - found["usage"][key],
        }
        for name, key in show.RESOURCES.items()
    ]
    show.table(
        rows,
        {
            "RESOURCE": "resource",
            **{heading: show.amount_of(key) for heading, key in show.ROOM.items() if key != "required"},
        },
    )
    count = found["usage"]["instances"]
    monthly = found["usage"].get("monthly")
    cost = "" if monthly is None else f", {monthly:.2f} {found['usage']['currency']} a month"
    click.echo(f"{count} instance{'s' if count != 1 else ''}{cost}")
