"""What every command shares: the `bpctl` group and its --url, the context every command is
handed (the service and a session with the caller's credentials), the options several commands
take (-o, --owner, the list's filters), and the voice for standard error."""

import functools
import os

import click

from bpctl import show
from bpctl.errors import Misused
from bpctl.session import DEFAULT_URL, Session, service_url

ENTITLEMENTS = click.Choice(["OWNER", "PUBLIC", "TEAM", "CUSTOM"], case_sensitive=False)  # `public` gives PUBLIC
OUTPUT = click.option("-o", "--output", type=click.Choice(["table", "json"]), default="table", help="Table or JSON.")
OWNER = click.option("--owner", help="Whose blueprint, where others share its name.")
FOR_TEAM = click.option(
    "--owner", metavar="team:NAME", help="Make it the team's (you are a member or maintainer of it), not yours."
)


def READERS(command):  # noqa: N802 (a decorator, named as the options it adds)
    """--entitlement, --entitled-user, --entitled-team and --tag: who reads what a command makes,
    and its tags (`readers` makes them the body's fields)."""
    for option in reversed(
        (
            click.option("--entitlement", type=ENTITLEMENTS, help="Who may read it (default OWNER: its owner)."),
            click.option("--entitled-user", multiple=True, help="A user who may read it, with CUSTOM (repeat)."),
            click.option(
                "--entitled-team", multiple=True, help="A team whose members use it, with TEAM or CUSTOM (repeat)."
            ),
            click.option("--tag", multiple=True, help="A tag (repeat)."),
        )
    ):
        command = option(command)
    return command


def readers(entitlement, entitled_user, entitled_team, tag):
    """The fields READERS' options give (None where not given)."""
    return {
        "entitlementType": entitlement and entitlement.upper(),
        "entitledUsers": list(entitled_user) or None,
        "entitledTeams": list(entitled_team) or None,
        "tags": [t.lower() for t in tag] or None,
    }


def TARGET(command):  # noqa: N802 (a decorator, named as the options it adds)
    """--target and --volume-size, which ask for a Compose blueprint rendered for Kubernetes."""
    command = click.option(
        "--volume-size",
        "volume_sizes",
        multiple=True,
        metavar="[VOLUME=]SIZE",
        help="With --target kubernetes: each claim's size (1Gi by default), or one volume's (repeat).",
    )(command)
    return click.option(
        "--target",
        type=click.Choice(["compose", "kubernetes"]),
        help="Render for this (default: the blueprint's own format): kubernetes converts a Compose blueprint.",
    )(command)


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.option("--url", envvar="BPCTL_URL", default=DEFAULT_URL, show_default=True, help="The service (BPCTL_URL).")
@click.version_option(package_name="blueprints-service", prog_name="bpctl")
@click.pass_context
def cli(ctx, url):
    """The blueprints service from the shell: list, push, render, fit, import, export.

    Credentials: BPCTL_TOKEN, else BPCTL_USERNAME and BPCTL_PASSWORD, else the token `bpctl login`
    stored. Exit codes: 0 done (and fits), 1 does not fit, 2 usage, 3 refused by the service,
    4 the service could not be reached or failed.
    """
    ctx.obj = Service(url)


class Service:
    """The context object of every command (click's `ctx.obj`): the service as this command was
    given it (--url, BPCTL_URL or the default), and a session with the caller's credentials,
    opened when a command first needs it."""

    def __init__(self, url):
        self.url = service_url(url)

    @functools.cached_property
    def session(self):
        return Session.from_environment(self.url)


pass_service = click.make_pass_decorator(Service)


def pass_session(command):
    """Hand `command` the session of the service (`Service.session`) as its first argument."""

    @functools.wraps(command)
    def run(*args, **kwargs):
        return command(click.get_current_context().find_object(Service).session, *args, **kwargs)

    return run


def lists(group, path, summary, columns):
    """The `ls` command of `group`: every item at `path`, as a table of `columns` or as JSON."""

    @group.command("ls", help=summary)
    @OUTPUT
    @pass_session
    def ls(session, output):
        show.listed(list(session.items(path)), columns, output)

    return ls


def note(text):
    click.echo(text, err=True)


def from_environment(variable, option):
    """A credential read from the environment variable `variable` (None: the option not given),
    never from the command line, where other users of the machine see it."""
    if variable is None:
        return None
    if not os.environ.get(variable):
        raise Misused(f"{option}: the environment variable {variable} is not set.")
    return os.environ[variable]


def given(**fields):
    """The fields an option gave (None: not given), for a body that sends only those."""
    return {key: value for key, value in fields.items() if value is not None}


def list_filters(command):
    """The list's filters as options, for `ls` and `export`."""
    options = [
        click.option("--name", help="Exactly this name."),
        click.option("-q", "--query", help="Words that start words of the name, description or tags."),
        click.option("--type", "blueprint_type", help="This blueprintType."),
        click.option("--entitlement", type=ENTITLEMENTS, help="This entitlementType."),
        click.option("--inactive/--active", default=None, help="Only inactive, or only active, blueprints."),
        click.option("--tag", multiple=True, help="Carries this tag (repeat: all of them)."),
        click.option("--starred", is_flag=True, default=None, help="Only what you starred."),
        click.option("--fits-profile", help="Fits this profile (its id or name)."),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def query(session, name, query, blueprint_type, entitlement, inactive, tag, starred, fits_profile):
    return {
        "name": name,
        "q": query,
        "blueprintType": blueprint_type,
        "entitlementType": entitlement,
        "inactive": inactive,
        "tag": list(tag),
        "starred": starred,
        "fitsProfile": fits_profile and session.profile(fits_profile)["id"],
    }
