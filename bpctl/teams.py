"""Teams: list yours, create one, give someone a role in it or take them out, and what it spends."""

from urllib.parse import quote

import click

from bpctl import show
from bpctl.common import OUTPUT, cli, lists, note, pass_session

ROLES = click.Choice(["maintainer", "member", "viewer"])


@cli.group()
def team():
    """Teams: list yours, create one, add and remove members, what a team spends."""


list_teams = lists(
    team,
    "/teams",
    "List your teams (an admin: every team), newest first.",
    {
        "NAME": "name",
        "ROLE": "role",
        "MEMBERS": lambda item: ", ".join(f"{m['username']} ({m['role']})" for m in item["members"]),
    },
)


@team.command("show")
@click.argument("name")
@OUTPUT
@pass_session
def show_team(session, name, output):
    """Show the team NAME: its members and their roles, its profiles with what each costs a month
    and what their caps would, and its instances."""
    found = session.get(f"/teams/{quote(name, safe='')}")
    owner = f"team:{name}"
    spent = _spend(session, name)
    profiles = {line["id"]: line for line in spent["profiles"]}
    instances = list(session.items("/instances", {"owner": owner}))
    if output == "json":
        show.as_json({**found, "spend": spent, "instances": instances})
        return
    show.fields([("team", found["name"]), ("description", found.get("description")), ("your role", found["role"])])
    click.echo()
    show.table(found["members"], {"MEMBER": "username", "ROLE": "role", "FROM": "origin"})
    click.echo()
    show.table(
        list(profiles.values()),
        {"PROFILE": "name", "ID": "id", "MONTHLY": _cents("monthly"), "CAPS WOULD": _cents("capMonthly")},
    )
    click.echo()
    show.table(
        instances,
        {
            "INSTANCE": "name",
            "ID": "id",
            "PROFILE": lambda one: (profiles.get(one["profile"]) or {}).get("name", one["profile"]),
            "REV": "rev",
            "DELIVERY": lambda one: (one.get("delivery") or {}).get("state"),
        },
    )
    click.echo(f"\n{name}: {_total(spent)}")


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
    spent = _spend(session, name)
    if output == "json":
        show.as_json(spent)
        return
    show.table(spent["profiles"], {"PROFILE": "name", "MONTHLY": _cents("monthly"), "CAPS WOULD": _cents("capMonthly")})
    click.echo(f"{name}: {_total(spent)}")


def _spend(session, name):
    """The team's spend with every profile's line, page after page (`next` null)."""
    path, lines, params = f"/teams/{quote(name, safe='')}/spend", [], {"limit": 200}
    while True:
        page = session.get(path, params)
        lines += page["profiles"]
        if page["next"] is None:
            return {**page, "profiles": lines}
        params["cursor"] = page["next"]


def _cents(key):
    """A column of amounts at `key`, in cents as the total is written."""
    return lambda line: None if line[key] is None else f"{line[key]:.2f}"


def _total(spent):
    if spent["monthly"] is None:
        return "not priced (the operator set no PRICES)"
    return f"{spent['monthly']:.2f} {spent['currency']} a month"
