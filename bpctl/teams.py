"""Teams: list yours, create one, give someone a role in it or take them out, and what it spends."""

from urllib.parse import quote

import click

from bpctl import show
from bpctl.common import OUTPUT, cli, note, pass_session

ROLES = click.Choice(["maintainer", "member", "viewer"])


@cli.group()
def team():
    """Teams: list yours, create one, add and remove members, what a team spends."""


@team.command("ls")
@OUTPUT
@pass_session
def list_teams(session, output):
    """List your teams (an admin: every team), newest first."""
    items = list(session.items("/teams"))
    show.listed(
        items,
        {
            "NAME": "name",
            "ROLE": "role",
            "MEMBERS": lambda item: ", ".join(f"{m['username']} ({m['role']})" for m in item["members"]),
        },
        output,
    )


@team.command("create")
@click.argument("name")
@click.option("--description", help="What the team is.")
@pass_session
def create(session, name, description):
    """Create the team NAME (admins; members where the operator lets them); you maintain it."""
    session.send("POST", "/teams", json={"name": name, "description": description})
    note(f"Team {name} created: you are its maintainer. Create as it with owner team:{name}.")


@team.command("add")
@click.argument("name")
@click.argument("username")
@click.option("--role", type=ROLES, default="member", show_default=True, help="Their role in the team.")
@pass_session
def add(session, name, username, role):
    """Give USERNAME a ROLE in the team NAME (its maintainers, admins)."""
    session.send("PUT", f"/teams/{quote(name, safe='')}/members/{quote(username, safe='')}", json={"role": role})
    note(f"{username} is a {role} of {name}.")


@team.command("remove")
@click.argument("name")
@click.argument("username")
@pass_session
def remove(session, name, username):
    """Take USERNAME out of the team NAME (its maintainers, admins; anyone may leave)."""
    session.send("DELETE", f"/teams/{quote(name, safe='')}/members/{quote(username, safe='')}")
    note(f"{username} is no longer in {name}.")


@team.command("spend")
@click.argument("name")
@OUTPUT
@pass_session
def spend(session, name, output):
    """What the team's profiles cost a month, and what their caps would."""
    path, lines = f"/teams/{quote(name, safe='')}/spend", []
    params = {"limit": 200}
    while True:
        page = session.get(path, params)
        lines += page["profiles"]
        if page["next"] is None:
            break
        params["cursor"] = page["next"]
    if output == "json":
        show.as_json({**page, "profiles": lines, "next": None})
        return
    cents = lambda key: lambda line: None if line[key] is None else f"{line[key]:.2f}"  # noqa: E731 (as the total)
    show.table(lines, {"PROFILE": "name", "MONTHLY": cents("monthly"), "CAPS WOULD": cents("capMonthly")})
    total = (
        "not priced (the operator set no PRICES)"
        if page["monthly"] is None
        else f"{page['monthly']:.2f} {page['currency']}"
    )
    click.echo(f"{name}: {total} a month")
