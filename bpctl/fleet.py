"""Many instances at once, and an instance's releases: `upgrade` of a selection (its blueprint,
source, profile or team; those behind alone), `releases` and `rollback`."""

import sys
from collections import Counter

import click

from bpctl import jobs, show
from bpctl.common import OUTPUT, cli, note, pass_session
from bpctl.errors import Refused
from bpctl.names import named


def upgrade_many(session, selection, behind, rev, dry_run, output):
    """Upgrade every instance of the selection you may change, each on its own (--behind alone:
    those behind of each blueprint that has one); exit 3 when one was refused or failed (the
    others are done)."""
    body = {"behind": behind, **({"rev": rev} if rev else {})}
    body |= {key: selection[key] for key in ("source", "team") if selection.get(key)}
    if selection.get("blueprint"):
        body["blueprint"] = session.blueprint(selection["blueprint"])["id"]
    if selection.get("profile"):
        body["profile"] = session.profile(selection["profile"])["id"]
    if body.keys() == {"behind"}:  # --behind alone
        behind_of = dict.fromkeys(item["blueprint"] for item in session.items("/instances", {"behind": True}))
        selections = [{**body, "blueprint": blueprint} for blueprint in behind_of]
    else:
        selections = [body]
    results = [one for each in selections for one in _upgraded(session, each, dry_run)]
    if output == "json":
        show.as_json({"results": results})
    else:
        _shown(results, dry_run)
    if any(one["outcome"] in ("refused", "failed") for one in results):
        sys.exit(3)


def _upgraded(session, body, dry_run):
    """The results of one upgrade of many (followed as a job past 50 instances)."""
    response = session.request("POST", "/instances/upgrade", json=body, params={"dryRun": dry_run})
    if response.status_code == 202:
        return jobs.followed(session, response.json(), "upgrading")["report"]["results"]
    return response.json()["results"]


def _shown(results, dry_run):
    """A table of what each instance became (a dry run: would become, with each diff on standard
    error), and how many of each."""
    show.table(
        results,
        {
            "NAME": "name",
            "FROM": "from",
            "TO": "to",
            "OUTCOME": lambda one: ("would be " if dry_run and one["outcome"] == "upgraded" else "") + one["outcome"],
            "ADDED": lambda one: ", ".join(one["added"]) or None,
            "REMOVED": lambda one: ", ".join(one["removed"]) or None,
            "WHY": lambda one: one["problems"][0] if one["problems"] else None,
        },
    )
    for one in results if dry_run else ():
        if one["diff"]:
            note(f"{one['name']}:")
            click.echo(one["diff"], err=True, nl=False)
    counts = Counter(one["outcome"] for one in results)
    summary = ", ".join(f"{count} {outcome}" for outcome, count in counts.items()) or "none selected"
    note(("would be: " if dry_run else "") + summary)


@cli.command(short_help="An instance's releases, newest first.")
@named("instance", "instance")
@OUTPUT
@pass_session
def releases(session, instance, output):
    """List INSTANCE's releases (its name or id): each create, upgrade and rollback, with the
    revision and values it used (secrets hidden)."""
    found = session.instance(instance)
    items = list(session.items(f"/instances/{found['id']}/releases"))
    show.listed(
        items,
        {
            "RELEASE": lambda one: f"{one['release']}{' (current)' if one['release'] == found['release'] else ''}",
            "REV": "rev",
            "AT": lambda one: one["at"][:19].replace("T", " "),
            "BY": "by",
            "VALUES": lambda one: ", ".join(f"{k}={'***' if v is None else v}" for k, v in one["values"].items()),
        },
        output,
    )


@cli.command(short_help="Restore a release of an instance (revision and values).")
@named("instance", "instance", then="release", then_required=False)
@click.argument("release", type=click.IntRange(1), required=False)
@pass_session
def rollback(session, instance, release):
    """Restore RELEASE of INSTANCE (default: the one before the current), its revision and its
    values as they were, as `helm rollback` does: the diff goes to standard error."""
    found = session.instance(instance)
    if release is None:
        if found["release"] < 2:
            raise Refused(f"{found['name']} has only its first release.")
        release = found["release"] - 1
    done = session.send("POST", f"/instances/{found['id']}/rollback", {"release": release})
    click.echo(done["diff"] or "(no change)", err=True, nl=not done["diff"])
    note(f"{found['name']}: release {done['release']} restores release {release} (revision {done['rev']})")
