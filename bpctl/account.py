"""Signing in and out, profiles, and shell completion."""

import os
import sys

import click
from click.shell_completion import get_completion_class

from bpctl import show, tokens
from bpctl.common import OUTPUT, cli, connect, given, given_url, note
from bpctl.errors import Refused
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
    else:
        password = os.environ.get("BPCTL_PASSWORD") or click.prompt("Password", hide_input=True)
    url = given_url()
    signed_in = Session(url, basic(username, password)).send("POST", "/tokens")
    tokens.save(url, {"token": signed_in["token"], "expiresAt": signed_in["expiresAt"], "username": username})
    note(f"Signed in to {url} as {username} until {signed_in['expiresAt']} (token kept in {tokens.path()}).")


@cli.command(short_help="Revoke and forget the kept token.")
def logout():
    """Revoke the token `bpctl login` kept for this service, and forget it."""
    url = given_url()
    stored = tokens.load().get(url)
    if stored is None:
        note(f"Not signed in to {url}.")
        return
    try:
        Session(url, bearer(stored["token"])).send("DELETE", "/tokens")
    except Refused as exc:
        if exc.status != 401:  # a 401: it had expired or was revoked already
            raise
    tokens.forget(url)
    note(f"Signed out of {url}: the token is revoked.")


@cli.group()
def profile():
    """Profiles: list them, create one, export one as Kubernetes' quota objects."""


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


@profile.command("create")
@click.argument("name")
@click.option("--memory", help="The memory cap: 2Gi, 512Mi...")
@click.option("--cpu", help="The CPU cap: 2, 0.5, 500m...")
@click.option("--containers", help="The most containers.")
@click.option("--storage", help="The storage cap: 10Gi...")
@click.option("--default-memory", help="What a container that declares no memory counts (and is given): 256Mi...")
@click.option("--default-cpu", help="What a container that declares no CPU counts (and is given): 250m...")
@click.option("--max-memory", help="The most memory one container may have.")
@click.option("--max-cpu", help="The most CPU one container may have.")
@click.option("--share", "shared", multiple=True, metavar="USER", help="A user who may read it and fit to it (repeat).")
@click.option("--default", "default", is_flag=True, help="Make it your default profile.")
@OUTPUT
def create_profile(name, memory, cpu, containers, storage, default_memory, default_cpu, max_memory, max_cpu, shared,
                   default, output):  # fmt: skip
    """Create a profile."""
    caps = {"memoryCap": memory, "cpuCap": cpu, "containerCap": containers, "storageCap": storage}
    body = {"name": name, "defaultProfile": default, **{key: value for key, value in caps.items() if value}}
    for field, amounts in (("containerDefaults", given(memory=default_memory, cpu=default_cpu)),
                           ("containerMax", given(memory=max_memory, cpu=max_cpu))):  # fmt: skip
        if amounts:
            body[field] = amounts
    if shared:
        body["entitledUsers"] = list(shared)
    made = connect().send("POST", "/profiles", body)
    if output == "json":
        show.as_json(made)
    else:
        click.echo(f"{made['name']}: created ({made['id']}){', your default' if made['defaultProfile'] else ''}")


@profile.command("export")
@click.argument("name")
@click.option("--namespace", help="The namespace the objects name (default: none, the one they are applied in).")
def export_profile(name, namespace):
    """Write a profile (its id or name) as a Kubernetes ResourceQuota and LimitRange, for
    `kubectl apply -f -`; `bpctl import FILE --format kubernetes-quota` reads them back."""
    session = connect()
    found = session.profile(name)
    session.stream(f"/profiles/{found['id']}/export", {"format": "kubernetes", "namespace": namespace},
                   click.get_binary_stream("stdout"))  # fmt: skip


@cli.command(short_help="Print the shell code for completion.")
@click.argument("shell", type=click.Choice(["bash", "zsh", "fish"]))
def completion(shell):
    """Print the shell code that completes bpctl's commands, e.g. `eval "$(bpctl completion bash)"`."""
    complete = get_completion_class(shell)(cli, {}, "bpctl", "_BPCTL_COMPLETE")
    click.echo(complete.source())
