"""Signing in and out, profiles, and shell completion."""

import os
import sys

import click
from click.shell_completion import get_completion_class

from bpctl import show, tokens
from bpctl.common import OUTPUT, cli, connect, given, given_url, note
from bpctl.errors import Misused, Refused
from bpctl.session import Session, basic, bearer


@cli.command(short_help="Sign in; keep a token (never the password).")
@click.option("-u", "--username", envvar="BPCTL_USERNAME", prompt=True, help="Your username (BPCTL_USERNAME).")
@click.option("--password-stdin", is_flag=True, help="Read the password from standard input.")
def login(username, password_stdin):
    """Sign in, and keep a token for this service (never the password).

    The password comes from standard input (--password-stdin), else BPCTL_PASSWORD, else a prompt
    that does not echo: never from the command line, where other users see it.
    """
    if password_stdin:
        password = sys.stdin.readline().rstrip("\r\n")
    elif os.environ.get("BPCTL_PASSWORD"):
        password = os.environ["BPCTL_PASSWORD"]
    else:
        try:
            password = click.prompt("Password", hide_input=True)
        except click.Abort:  # no terminal, and nothing on standard input: a script
            raise Misused("no password: set BPCTL_PASSWORD, or pipe it in with --password-stdin.") from None
    url = given_url()
    signed_in = Session(url, basic(username, password)).send("POST", "/tokens")
    tokens.save(url, {"token": signed_in["token"], "expiresAt": signed_in["expiresAt"], "username": username})
    note(f"Signed in to {url} as {username} until {signed_in['expiresAt']} (token kept in {tokens.path()}).")


@cli.command(short_help="Revoke and forget the kept token.")
@click.option("--everywhere", is_flag=True, help="Revoke every token of yours, wherever it was issued.")
def logout(everywhere):
    """Revoke the token `bpctl login` kept for this service, and forget it; with --everywhere,
    every token of yours at this service (one that leaked, another machine's)."""
    url = given_url()
    stored = tokens.load().get(url)
    if stored is None:
        note(f"Not signed in to {url}.")
        return
    try:
        Session(url, bearer(stored["token"])).send("DELETE", "/tokens?all=true" if everywhere else "/tokens")
    except Refused as exc:
        if exc.status != 401:  # a 401: it had expired or was revoked already
            raise
    tokens.forget(url)
    note(f"Signed out of {url}: {'every token of yours is' if everywhere else 'the token is'} revoked.")


@cli.group()
def profile():
    """Profiles: list, show, create, change, delete; export one as Kubernetes' quota objects."""


@profile.command("ls")
@click.option("--name", help="Exactly this name.")
@OUTPUT
def list_profiles(name, output):
    """List your profiles (an admin: everyone's), newest first."""
    items = list(connect().items("/profiles", {"name": name}))
    if output == "json":
        show.as_json(items)
        return
    show.table(
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
    )


def _cap(resource, key):
    return lambda item: show.amount(resource, (item.get("limits") or {}).get(key))


def _per_container(field):
    """A profile's container defaults (or maximum): `256Mi/250m`, `-` for a member not set."""

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
def create_profile(name, output, duplicate, **options):
    """Create a profile; refused (exit 3) when you have one of that name already, since every
    command naming it would then ask which one."""
    session = connect()
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
def get_profile(name, output):
    """Show a profile (its id or name): caps, container defaults and maximum, usage, who shares it."""
    found = connect().profile(name)
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
def change_profile(name, output, **options):
    """Change the fields the options give of a profile (its id or name), on the version read."""
    session = connect()
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
def delete_profile(name):
    """Delete a profile (its id or name); refused while instances spend from it."""
    session = connect()
    found = session.profile(name)
    session.send("DELETE", f"/profiles/{found['id']}")
    note(f"{found['name']}: deleted")


@profile.command("export")
@click.argument("name")
@click.option("--namespace", help="The namespace the objects name (default: none, the one they are applied in).")
def export_profile(name, namespace):
    """Write a profile (its id or name) as a Kubernetes ResourceQuota and LimitRange, for
    `kubectl apply -f -`; `bpctl import FILE --format kubernetes-quota` reads them back."""
    session = connect()
    found = session.profile(name)
    for chunk in session.stream(f"/profiles/{found['id']}/export", {"format": "kubernetes", "namespace": namespace}):
        click.echo(chunk, nl=False)


@cli.command(short_help="Print the shell code for completion.")
@click.argument("shell", type=click.Choice(["bash", "zsh", "fish"]))
def completion(shell):
    """Print the shell code that completes bpctl's commands, e.g. `eval "$(bpctl completion bash)"`."""
    complete = get_completion_class(shell)(cli, {}, "bpctl", "_BPCTL_COMPLETE")
    click.echo(complete.source())
