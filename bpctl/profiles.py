"""Profiles: list, show, create, change, delete."""

import click

from bpctl import show
from bpctl.common import OUTPUT, cli, given, note, pass_session
from bpctl.errors import Refused


@cli.group()
def profile():
    """Profiles: list, show, create, change, delete; export one as Kubernetes' quota objects."""


@profile.command("ls")
@click.option("--name", help="Exactly this name.")
@OUTPUT
@pass_session
def list_profiles(session, name, output):
    """List your profiles (an admin: everyone's), newest first."""
    items = list(session.items("/profiles", {"name": name}))
    show.listed(
        items,
        {
            "ID": "id",
            "NAME": "name",
            "DEFAULT": "defaultProfile",
            **{resource.upper(): _cap(resource, key) for resource, key in show.RESOURCES.items()},
            "CONTAINER DEFAULT": _per_container("containerDefaults"),
            "CONTAINER MAX": _per_container("containerMax"),
            "OWNER": "owner",
        },
        output,
    )


def _cap(resource, key):
    return lambda item: show.amount(resource, (item.get("limits") or {}).get(key))


def _per_container(field):
    """A profile's container defaults (or maximum): `256Mi/0.25`, `-` for a member not set."""

    def cell(item):
        given = (item.get("limits") or {}).get(field) or {}
        shown = [show.amount(resource, given.get(show.RESOURCES[resource])) or "-" for resource in ("memory", "cpu")]
        return None if shown == ["-", "-"] else "/".join(shown)

    return cell


PROFILE_OPTIONS = (
    click.option("--memory", help="The memory cap: 2Gi, 512Mi..."),
    click.option("--cpu", help="The CPU cap: 2, 0.5, 500m..."),
    click.option("--containers", help="The most containers."),
    click.option("--storage", help="The storage cap: 10Gi..."),
    click.option("--default-memory", help="What a container that declares no memory counts (and is given): 256Mi..."),
    click.option("--default-cpu", help="What a container that declares no CPU counts (and is given): 250m..."),
    click.option("--max-memory", help="The most memory one container may have."),
    click.option("--max-cpu", help="The most CPU one container may have."),
    click.option("--share", "shared", multiple=True, metavar="USER", help="A user who may read it and fit to it."),
    click.option(
        "--pod-security",
        type=click.Choice(["restricted", "baseline", "privileged"]),
        help="The Pod Security Standards level it holds to (baseline when created; privileged: admins).",
    ),
    click.option(
        "--allow-kind",
        "allow_kinds",
        multiple=True,
        metavar="GROUP/KIND",
        help="A kind the service cannot measure its instances may hold (admins; repeat).",
    ),
    click.option("--default", "default", is_flag=True, default=None, help="Make it your default profile."),
    OUTPUT,
)


def profile_options(command):
    for option in reversed(PROFILE_OPTIONS):
        command = option(command)
    return command


def _profile_body(
    memory,
    cpu,
    containers,
    storage,
    default_memory,
    default_cpu,
    max_memory,
    max_cpu,
    shared,
    pod_security,
    allow_kinds,
    default,
):
    """The fields the options give (a change sends only those; a member of the container defaults
    or maximum not given keeps its value)."""
    body = given(
        memoryCap=memory,
        cpuCap=cpu,
        containerCap=containers,
        storageCap=storage,
        podSecurity=pod_security,
        defaultProfile=default,
    )
    if allow_kinds:
        body["allowKinds"] = list(allow_kinds)
    for field, amounts in (
        ("containerDefaults", given(memory=default_memory, cpu=default_cpu)),
        ("containerMax", given(memory=max_memory, cpu=max_cpu)),
    ):
        if amounts:
            body[field] = amounts
    if shared:
        body["entitledUsers"] = list(shared)
    return body


def _shown(found, output, words):
    if output == "json":
        show.as_json(found)
    else:
        click.echo(f"{found['name']}: {words} ({found['id']}){', your default' if found['defaultProfile'] else ''}")


@profile.command("create")
@click.argument("name")
@profile_options
@click.option("--duplicate", is_flag=True, help="Create it even though you have a profile of that name.")
@pass_session
def create_profile(session, name, output, duplicate, **options):
    """Create a profile; refused (exit 3) when you have one of that name already, since every
    command naming it would then ask which one."""
    if not duplicate:
        me = session.get("/users/me")["username"]
        if same := [found["id"] for found in session.items("/profiles", {"name": name, "owner": me})]:
            raise Refused(
                f"you have a profile named {name!r} already ({', '.join(same)}): change it with "
                "`bpctl profile change`, or give --duplicate for a second."
            )
    _shown(session.send("POST", "/profiles", {"name": name, **_profile_body(**options)}), output, "created")


@profile.command("get")
@click.argument("name")
@OUTPUT
@pass_session
def get_profile(session, name, output):
    """Show a profile (its id or name): caps, container defaults and maximum, usage, who shares it."""
    found = session.profile(name)
    if output == "json":
        show.as_json(found)
        return
    limits = found["limits"]
    show.fields(
        [
            ("id", found["id"]),
            ("name", found["name"]),
            ("owner", found["owner"]),
            ("default", found["defaultProfile"]),
            *((resource, show.amount(resource, limits[key])) for resource, key in show.RESOURCES.items()),
            ("container default", _per_container("containerDefaults")(found)),
            ("container max", _per_container("containerMax")(found)),
            ("shared with", found["entitledUsers"]),
            ("instances", found["usage"]["instances"]),
        ]
    )


@profile.command("change")
@click.argument("name")
@profile_options
@pass_session
def change_profile(session, name, output, **options):
    """Change the fields the options give of a profile (its id or name), on the version read."""
    found = session.profile(name)
    body = _profile_body(**options)
    if not body:
        raise click.UsageError("nothing to change: give at least one option.")
    for field in ("containerDefaults", "containerMax"):  # the service replaces the object whole
        if field in body:
            body[field] = {**(found[field] or {}), **body[field]}
    current = session.request("GET", f"/profiles/{found['id']}").headers["ETag"]
    _shown(session.send("PATCH", f"/profiles/{found['id']}", body, headers={"If-Match": current}), output, "changed")


@profile.command("delete")
@click.argument("name")
@pass_session
def delete_profile(session, name):
    """Delete a profile (its id or name); refused while instances spend from it."""
    found = session.profile(name)
    session.send("DELETE", f"/profiles/{found['id']}")
    note(f"{found['name']}: deleted")


@profile.command("export")
@click.argument("name")
@click.option("--namespace", help="The namespace the objects name (default: none, the one they are applied in).")
@pass_session
def export_profile(session, name, namespace):
    """Write a profile (its id or name) as a Kubernetes ResourceQuota and LimitRange, for
    `kubectl apply -f -`; `bpctl import FILE --format kubernetes-quota` reads them back."""
    found = session.profile(name)
    for chunk in session.stream(f"/profiles/{found['id']}/export", {"format": "kubernetes", "namespace": namespace}):
        click.echo(chunk, nl=False)
