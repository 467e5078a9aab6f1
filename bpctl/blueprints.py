"""The blueprint commands: ls, get, pull, push, history, diff, restore, star. A blueprint is named
by its id or its exact name (Session.blueprint)."""

import json
from pathlib import Path

import click
import yaml

from bpctl import fetch, show
from bpctl.common import FOR_TEAM, OUTPUT, OWNER, READERS, cli, given, list_filters, note, pass_session, query, readers
from bpctl.errors import Misused, Refused
from bpctl.names import CANDIDATES, ById, named, source_of
from bpctl.session import if_match

BLUEPRINT_COLUMNS = {
    "ID": "id",
    "NAME": "name",
    "VERSION": "version",
    "TYPE": "blueprintType",
    "OWNER": "owner",
    "SOURCE": source_of,
    "REV": "rev",
    "STARS": lambda item: f"{item['stars']}{'*' if item.get('starred') else ''}",
    "TAGS": "tags",
}


@cli.command("ls")
@list_filters
@click.option("--limit", type=click.IntRange(1), default=50, show_default=True, help="At most this many.")
@click.option("--all", "everything", is_flag=True, help="Every one, page after page.")
@OUTPUT
@pass_session
def list_blueprints(session, limit, everything, output, **filters):
    """List the blueprints you may read, newest first."""
    items = list(session.items("/blueprints", query(session, **filters), None if everything else limit))
    show.as_json(items) if output == "json" else show.table(items, BLUEPRINT_COLUMNS)


@cli.command()
@named("blueprint", "blueprint")
@OWNER
@OUTPUT
@pass_session
def get(session, blueprint, owner, output):
    """Show a blueprint: what it is, what it needs, its parameters, which service answers where."""
    found = session.blueprint(blueprint, owner)
    if output == "json":
        show.as_json(found)
        return
    needs = found.get("requirements")
    show.warn_unresolved(needs)
    parameters = (found.get("parameters") or {}).get("properties", {})
    show.fields(
        [
            ("id", found["id"]),
            ("name", found.get("name")),
            ("version", found.get("version")),
            ("type", found.get("blueprintType")),
            ("owner", found["owner"]),
            ("entitlement", _entitlement(found)),
            ("tags", found.get("tags")),
            ("revision", f"{found['rev']}, {found['updatedAt']} by {found.get('updatedBy') or found['owner']}"),
            ("stars", found["stars"]),
            ("inactive", found.get("inactive")),
            ("needs", show.needs(needs)),
            ("unbounded", needs and needs["unbounded"]),
            ("parameters", [f"{name} ({schema.get('type')})" for name, schema in parameters.items()]),
            ("routes", [show.route(route) for route in found.get("routes", [])]),
            ("source", found.get("source") and f"{source_of(found)} ({found['source']['format']})"),
        ]
    )


def _entitlement(found):
    """`CUSTOM bob team:pay`: who reads it, besides its owner."""
    teams = [f"team:{team}" for team in found.get("entitledTeams") or ()]
    return " ".join([found["entitlementType"], *(found.get("entitledUsers") or ()), *teams])


@cli.command(short_help="Write a definition, byte for byte.")
@named("blueprint", "blueprint")
@OWNER
@click.option("--rev", type=click.IntRange(1), help="A kept revision instead of the current one.")
@pass_session
def pull(session, blueprint, owner, rev):
    """Write a blueprint's definition to standard output, byte for byte."""
    found = session.blueprint(blueprint, owner)
    if rev is None:
        data = session.request("GET", f"/blueprints/{found['id']}/yml").content
    else:
        kept = session.get(f"/blueprints/{found['id']}/revisions/{rev}")
        if kept.get("yml") is None:
            raise Refused(f"revision {rev} of {blueprint!r} has no definition.")
        data = kept["yml"].encode()
    click.echo(data, nl=False)  # bytes: written as they are


@cli.command(short_help="Create a blueprint, or a new revision of yours.")
@click.argument("file", type=click.File("rb"))
@click.option("--name", help="The blueprint's name (default: the file's name without its extension).")
@click.option("--type", "blueprint_type", help="compose, kubernetes... (default: read from the file).")
@click.option("--version", help="The blueprint's version.")
@click.option("--description", help="What it is.")
@READERS
@click.option("--parameters", type=click.File("rb"), help="Its parameters: a JSON Schema, in JSON or YAML.")
@click.option("--inactive/--active", default=None, help="Mark it inactive, or active.")
@FOR_TEAM
@click.option("--id", "by_id", metavar="ID", help="Make FILE a new revision of this blueprint, whatever its name.")
@click.option("--dry-run", is_flag=True, help="Check everything, store nothing.")
@OUTPUT
@pass_session
def push(
    session,
    file,
    name,
    blueprint_type,
    entitlement,
    entitled_user,
    entitled_team,
    tag,
    parameters,
    inactive,
    owner,
    by_id,
    dry_run,
    output,
    **fields,
):
    """Create a blueprint from FILE ("-": standard input), or, when its owner (you, or the team
    --owner names) has one of that name, make FILE its new revision (only what differs is sent;
    nothing when nothing differs). Where an import made others of that name, the one no import
    made is the one pushed to; --id names it otherwise."""
    if name is None and _named(file) == "-":
        raise click.BadParameter("needed when the file is standard input.", param_hint="--name")
    fields = given(
        yml=_text(file),
        blueprintType=blueprint_type,
        parameters=parameters and _document(parameters),
        inactive=inactive,
        **readers(entitlement, entitled_user, entitled_team, tag),
        **fields,
    )
    name = name or Path(_named(file)).stem
    owner = owner or session.username
    mine = [session.blueprint(ById(by_id))] if by_id else _pushed_to(session, name, owner)
    dry = {"dryRun": True} if dry_run else None
    if not mine:
        fields.setdefault("blueprintType", _type_of(fields["yml"]))
        saved, what = session.send("POST", "/blueprints", {"name": name, "owner": owner, **fields}, dry), "created"
        if fields["blueprintType"] is None:  # said once the service took it, never before a refusal
            note(f"{name}: neither a Compose file nor Kubernetes manifests: kept unchecked (--type checks it as one).")
    elif changes := {key: value for key, value in fields.items() if mine[0].get(key) != value}:
        saved = session.send("PATCH", f"/blueprints/{mine[0]['id']}", changes, dry, if_match(mine[0]))
        what = "updated"
    else:
        saved, what = mine[0], "unchanged"
    if output == "json":
        show.as_json(saved)
    else:
        would = "would be " if dry_run else ""
        click.echo(f"{saved.get('name')}: {would}{what}, revision {saved['rev']} ({saved['id'] or 'new'})")


def _pushed_to(session, name, owner):
    """[the blueprint of `owner` named `name` that a push makes a new revision of], or [] for none:
    where several share the name, the one no import made (a push to an imported one is a change an
    import's next run reports as a conflict)."""
    found = list(session.items("/blueprints", {"name": name, "owner": owner}))
    if len(found) > 1:
        found = [item for item in found if not item.get("source")] or found
    if len(found) > 1:
        raise Misused(
            f"{owner} has {len(found)} blueprints named {name!r}: push to one with --id ID.",
            show.lines(found, CANDIDATES),
        )
    return found


def _named(file):
    """A file's name as given; "-" for standard input."""
    name = getattr(file, "name", "-")
    return "-" if name == "<stdin>" else name


def _text(file):
    return fetch.text(file.read(), _named(file))


def _document(file):
    """A JSON or YAML document from a file a person names."""
    try:
        return yaml.safe_load(_text(file))
    except yaml.YAMLError as exc:
        raise click.BadParameter(f"{_named(file)} is neither JSON nor YAML: {exc}") from None


# What a file that means to be of a format shows, even a broken one: it is then checked as that format
KUBERNETES_KEYS = {"apiVersion", "kind"}
COMPOSE_KEYS = {"services", "version", "volumes", "networks", "configs", "secrets", "include"}


def _type_of(text):
    """ "kubernetes" where a document has a manifest's `apiVersion` or `kind`, "compose" where the
    file has a top-level element of Compose's, else None (the service keeps it as YAML,
    unchecked). A broken file of either format is typed, so that the service says what is wrong."""
    try:
        documents = [document for document in yaml.safe_load_all(text) if document is not None]
    except yaml.YAMLError:
        return None  # the service says what is wrong with it
    mappings = [document for document in documents if isinstance(document, dict)]
    if any(KUBERNETES_KEYS & document.keys() for document in mappings):
        return "kubernetes"
    if len(documents) == 1 and mappings and COMPOSE_KEYS & mappings[0].keys():
        return "compose"
    return None


@cli.command()
@named("blueprint", "blueprint")
@OWNER
@click.option("--limit", type=click.IntRange(1), default=20, show_default=True, help="At most this many.")
@OUTPUT
@pass_session
def history(session, blueprint, owner, limit, output):
    """List a blueprint's kept revisions, newest first."""
    found = session.blueprint(blueprint, owner)
    kept = list(session.items(f"/blueprints/{found['id']}/revisions", limit=limit))
    if output == "json":
        show.as_json(kept)
    else:
        columns = {"REV": "rev", "SAVED": "updatedAt", "BY": "updatedBy", "NAME": "name", "VERSION": "version"}
        show.table(kept, columns)


@cli.command(short_help="What changed between two revisions.")
@named("blueprint", "blueprint")
@OWNER
@click.option("--from", "from_rev", type=click.IntRange(1), help="The older revision (default: the previous).")
@click.option("--to", "to_rev", type=click.IntRange(1), help="The newer revision (default: the current).")
@OUTPUT
@pass_session
def diff(session, blueprint, owner, from_rev, to_rev, output):
    """Show what changed between two revisions: the fields, then the definition as a unified diff."""
    found = session.blueprint(blueprint, owner)
    changed = session.get(f"/blueprints/{found['id']}/diff", {"from": from_rev, "to": to_rev})
    if output == "json":
        show.as_json(changed)
        return
    rows = [{"field": field, **change} for field, change in changed["fields"].items() if field != "yml"]
    note(f"revision {changed['from']} -> {changed['to']}")
    if rows:
        show.table(rows, {"FIELD": "field", "FROM": lambda r: _brief(r["from"]), "TO": lambda r: _brief(r["to"])})
    if changed.get("yml"):
        click.echo(changed["yml"], nl=False)
    if not rows and not changed.get("yml"):
        note("no difference")


def _brief(value):
    return value if isinstance(value, str | type(None)) else json.dumps(value)


@cli.command(short_help="Make a kept revision current again.")
@named("blueprint", "blueprint", then="rev")
@click.argument("rev", type=click.IntRange(1), required=False)
@OWNER
@OUTPUT
@pass_session
def restore(session, blueprint, rev, owner, output):
    """Make revision REV's fields the current version again (a new revision)."""
    found = session.blueprint(blueprint, owner)
    restored = session.send("POST", f"/blueprints/{found['id']}/revisions/{rev}/restore", headers=if_match(found))
    if output == "json":
        show.as_json(restored)
    else:
        click.echo(f"{restored.get('name')}: revision {rev} restored as revision {restored['rev']}")


@cli.command()
@named("blueprint", "blueprint")
@OWNER
@click.option("--off", is_flag=True, help="Unstar it.")
@pass_session
def star(session, blueprint, owner, off):
    """Star a blueprint (or, with --off, unstar it)."""
    found = session.blueprint(blueprint, owner)
    session.send("DELETE" if off else "PUT", f"/blueprints/{found['id']}/star")
    note(f"{found.get('name') or found['id']}: {'not ' if off else ''}starred")
