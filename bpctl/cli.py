"""The commands of `bpctl`, one function each, in the order `bpctl --help` lists them. Each resolves
what it is given (a name or an id), makes its calls through the Session, and prints: the asked-for
content or a table to standard output, diagnostics to standard error."""

import json
import os
import sys
from pathlib import Path

import click
import yaml
from click.shell_completion import get_completion_class

from bpctl import fetch, show, tokens, values
from bpctl.errors import Misused, Refused
from bpctl.session import DEFAULT_URL, Session, basic, service_url

ENTITLEMENTS = click.Choice(["OWNER", "PUBLIC", "CUSTOM"], case_sensitive=False)
OUTPUT = click.option("-o", "--output", type=click.Choice(["table", "json"]), default="table", help="Table or JSON.")
OWNER = click.option("--owner", help="Whose blueprint, where others share its name.")
BLUEPRINT_COLUMNS = {
    "ID": "id",
    "NAME": "name",
    "VERSION": "version",
    "TYPE": "blueprintType",
    "OWNER": "owner",
    "REV": "rev",
    "STARS": lambda item: f"{item['stars']}{'*' if item.get('starred') else ''}",
    "TAGS": "tags",
}


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
    ctx.obj = url


def given_url():
    """The service's URL as this command was given it (--url, BPCTL_URL or the default)."""
    return service_url(click.get_current_context().find_root().obj)


def connect():
    return Session.from_environment(given_url())


def note(text):
    click.echo(text, err=True)


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
        "entitlementType": entitlement and entitlement.upper(),
        "inactive": inactive,
        "tag": list(tag),
        "starred": starred,
        "fitsProfile": fits_profile and session.profile(fits_profile)["id"],
    }


@cli.command()
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
    signed_in = Session(url, {"Authorization": basic(username, password)}).send("POST", "/tokens")
    tokens.save(url, {"token": signed_in["token"], "expiresAt": signed_in["expiresAt"], "username": username})
    note(f"Signed in to {url} as {username} until {signed_in['expiresAt']} (token kept in {tokens.path()}).")


@cli.command()
def logout():
    """Revoke the token `bpctl login` kept for this service, and forget it."""
    url = given_url()
    stored = tokens.load().get(url)
    if stored is None:
        note(f"Not signed in to {url}.")
        return
    try:
        Session(url, {"Authorization": "Bearer " + stored["token"]}).send("DELETE", "/tokens")
    except Refused as exc:
        if exc.status != 401:  # a 401: it had expired or was revoked already
            raise
    tokens.forget(url)
    note(f"Signed out of {url}: the token is revoked.")


@cli.command("ls")
@list_filters
@click.option("--limit", type=click.IntRange(1), default=50, show_default=True, help="At most this many.")
@click.option("--all", "everything", is_flag=True, help="Every one, page after page.")
@OUTPUT
def list_blueprints(limit, everything, output, **filters):
    """List the blueprints you may read, newest first."""
    session = connect()
    items = list(session.items("/blueprints", query(session, **filters), None if everything else limit))
    show.as_json(items) if output == "json" else show.table(items, BLUEPRINT_COLUMNS)


@cli.command()
@click.argument("blueprint")
@OWNER
@OUTPUT
def get(blueprint, owner, output):
    """Show a blueprint: what it is, what it needs, its parameters."""
    found = connect().blueprint(blueprint, owner)
    if output == "json":
        show.as_json(found)
        return
    needs = found.get("requirements")
    parameters = (found.get("parameters") or {}).get("properties", {})
    show.fields(
        [
            ("id", found["id"]),
            ("name", found.get("name")),
            ("version", found.get("version")),
            ("type", found.get("blueprintType")),
            ("owner", found["owner"]),
            ("entitlement", " ".join([found["entitlementType"], *found.get("entitledUsers", [])])),
            ("tags", found.get("tags")),
            ("revision", f"{found['rev']}, {found['updatedAt']} by {found.get('updatedBy') or found['owner']}"),
            ("stars", found["stars"]),
            ("inactive", found.get("inactive")),
            ("needs", needs and ", ".join(f"{show.amount(r, needs[k])} {r}" for r, k in show.RESOURCES.items())),
            ("unbounded", needs and needs["unbounded"]),
            ("parameters", [f"{name} ({schema.get('type')})" for name, schema in parameters.items()]),
            ("source", found.get("source") and "{format} {name} {key}".format(**found["source"])),
        ]
    )


@cli.command()
@click.argument("blueprint")
@OWNER
@click.option("--rev", type=click.IntRange(1), help="A kept revision instead of the current one.")
def pull(blueprint, owner, rev):
    """Write a blueprint's definition to standard output, byte for byte."""
    session = connect()
    found = session.blueprint(blueprint, owner)
    if rev is None:
        data = session.request("GET", f"/blueprints/{found['id']}/yml").content
    else:
        kept = session.get(f"/blueprints/{found['id']}/revisions/{rev}")
        if kept.get("yml") is None:
            raise Refused(f"revision {rev} of {blueprint!r} has no definition.")
        data = kept["yml"].encode()
    click.get_binary_stream("stdout").write(data)


@cli.command()
@click.argument("file", type=click.File("rb"))
@click.option("--name", help="The blueprint's name (default: the file's name without its extension).")
@click.option("--type", "blueprint_type", help="compose, kubernetes... (default: read from the file).")
@click.option("--version", help="The blueprint's version.")
@click.option("--description", help="What it is.")
@click.option("--entitlement", type=ENTITLEMENTS, help="Who may read it.")
@click.option("--entitled-user", multiple=True, help="A user who may read a CUSTOM blueprint (repeat).")
@click.option("--tag", multiple=True, help="A tag (repeat).")
@click.option("--parameters", type=click.File("rb"), help="Its parameters: a JSON Schema, in JSON or YAML.")
@click.option("--inactive/--active", default=None, help="Mark it inactive, or active.")
@click.option("--dry-run", is_flag=True, help="Check everything, store nothing.")
@OUTPUT
def push(file, name, blueprint_type, entitlement, entitled_user, tag, parameters, inactive, dry_run, output, **text):
    """Create a blueprint from FILE ("-": standard input), or, when you have one of that name, make
    FILE its new revision (only what differs is sent; nothing when nothing differs)."""
    if name is None and _named(file) == "-":
        raise click.BadParameter("needed when the file is standard input.", param_hint="--name")
    fields = {
        "yml": _text(file),
        "blueprintType": blueprint_type,
        "entitlementType": entitlement and entitlement.upper(),
        "entitledUsers": list(entitled_user) or None,
        "tags": [t.lower() for t in tag] or None,
        "parameters": parameters and _document(parameters),
        "inactive": inactive,
        **text,
    }
    fields = {key: value for key, value in fields.items() if value is not None}
    name = name or Path(_named(file)).stem
    session = connect()
    me = session.get("/users/me")["username"]
    mine = [item for item in session.items("/blueprints", {"name": name}) if item["owner"] == me]
    dry = {"dryRun": True} if dry_run else None
    if len(mine) > 1:
        raise Misused(f"you have {len(mine)} blueprints named {name!r}: rename all but one, then push again.")
    if not mine:
        fields.setdefault("blueprintType", _type_of(fields["yml"]))
        saved, what = session.send("POST", "/blueprints", {"name": name, **fields}, dry), "created"
    elif changes := {key: value for key, value in fields.items() if mine[0].get(key) != value}:
        current = mine[0]
        headers = {"If-Match": f'"{current["rev"]}"'}
        saved, what = session.send("PATCH", f"/blueprints/{current['id']}", changes, dry, headers), "updated"
    else:
        saved, what = mine[0], "unchanged"
    if output == "json":
        show.as_json(saved)
    else:
        would = "would be " if dry_run else ""
        click.echo(f"{saved.get('name')}: {would}{what}, revision {saved['rev']} ({saved['id'] or 'new'})")


def _named(file):
    """A file's name as given; "-" for standard input."""
    name = getattr(file, "name", "-")
    return "-" if name == "<stdin>" else name


def _text(file):
    try:
        return file.read().decode("utf-8")
    except UnicodeDecodeError:
        raise click.BadParameter(f"{_named(file)} is not UTF-8 text.") from None


def _document(file):
    """A JSON or YAML document from a file a person names."""
    try:
        return yaml.safe_load(_text(file))
    except yaml.YAMLError as exc:
        raise click.BadParameter(f"{_named(file)} is neither JSON nor YAML: {exc}") from None


def _type_of(text):
    """ "compose" for a Compose file, "kubernetes" for manifests, else None (the service then keeps
    the text as YAML, unchecked)."""
    try:
        documents = [document for document in yaml.safe_load_all(text) if document is not None]
    except yaml.YAMLError:
        return None  # the service says what is wrong with it
    if len(documents) == 1 and isinstance(documents[0], dict) and "services" in documents[0]:
        return "compose"
    if documents and all(isinstance(d, dict) and "apiVersion" in d and "kind" in d for d in documents):
        return "kubernetes"
    return None


@cli.command()
@click.argument("blueprint")
@OWNER
@click.option("--limit", type=click.IntRange(1), default=20, show_default=True, help="At most this many.")
@OUTPUT
def history(blueprint, owner, limit, output):
    """List a blueprint's kept revisions, newest first."""
    session = connect()
    found = session.blueprint(blueprint, owner)
    kept = list(session.items(f"/blueprints/{found['id']}/revisions", limit=limit))
    if output == "json":
        show.as_json(kept)
    else:
        columns = {"REV": "rev", "SAVED": "updatedAt", "BY": "updatedBy", "NAME": "name", "VERSION": "version"}
        show.table(kept, columns)


@cli.command()
@click.argument("blueprint")
@OWNER
@click.option("--from", "from_rev", type=click.IntRange(1), help="The older revision (default: the previous).")
@click.option("--to", "to_rev", type=click.IntRange(1), help="The newer revision (default: the current).")
@OUTPUT
def diff(blueprint, owner, from_rev, to_rev, output):
    """Show what changed between two revisions: the fields, then the definition as a unified diff."""
    session = connect()
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


@cli.command()
@click.argument("blueprint")
@click.argument("rev", type=click.IntRange(1))
@OWNER
@OUTPUT
def restore(blueprint, rev, owner, output):
    """Make revision REV's fields the current version again (a new revision)."""
    session = connect()
    found = session.blueprint(blueprint, owner)
    headers = {"If-Match": f'"{found["rev"]}"'}
    restored = session.send("POST", f"/blueprints/{found['id']}/revisions/{rev}/restore", headers=headers)
    if output == "json":
        show.as_json(restored)
    else:
        click.echo(f"{restored.get('name')}: revision {rev} restored as revision {restored['rev']}")


@cli.command()
@click.argument("blueprint")
@OWNER
@click.option("--off", is_flag=True, help="Unstar it.")
def star(blueprint, owner, off):
    """Star a blueprint (or, with --off, unstar it)."""
    session = connect()
    found = session.blueprint(blueprint, owner)
    session.send("DELETE" if off else "PUT", f"/blueprints/{found['id']}/star")
    note(f"{found.get('name') or found['id']}: {'not ' if off else ''}starred")


@cli.command()
@click.argument("blueprint")
@OWNER
@click.option("--profile", help="A profile's id or name (default: your default profile).")
@OUTPUT
def fit(blueprint, owner, profile, output):
    """Whether a blueprint fits a profile's caps; exit 1 when it does not (or cannot be told)."""
    session = connect()
    found = session.blueprint(blueprint, owner)
    params = {"profile": session.profile(profile)["id"]} if profile else None
    result = session.get(f"/blueprints/{found['id']}/fit", params)
    if output == "json":
        show.as_json(result)
    else:
        show.fit(result)
        click.echo({True: "fits", False: "does not fit"}.get(result["fits"], "unknown: it has no requirements"))
    if result["fits"] is not True:
        sys.exit(1)


@cli.command()
@click.argument("blueprint")
@OWNER
@click.option("--set", "settings", multiple=True, metavar="NAME=VALUE", help="A value (repeat; the last wins).")
@click.option("-f", "--values", "files", type=click.File("r"), multiple=True, help="A YAML file of values (repeat).")
@click.option("--profile", help="Fit the result to this profile (id or name): exit 1 when it does not fit.")
@click.option("--maximize", metavar="NAME", help="Render at the most of this integer parameter that fits --profile.")
@click.option("--rev", type=click.IntRange(1), help="Render a kept revision.")
@click.option("-o", "--output", type=click.Choice(["yaml", "json"]), default="yaml", help="The definition, or JSON.")
def render(blueprint, owner, settings, files, profile, maximize, rev, output):
    """Write a blueprint's definition filled in with values, and nothing else, to standard output.

    With --profile, a definition that does not fit is not written (exit 1; the fit goes to
    standard error), so that a pipe into `docker compose -f - up` deploys nothing.
    """
    if maximize and not profile:
        raise click.BadParameter("needs --profile: the most that fits which profile?", param_hint="--maximize")
    session = connect()
    found = session.blueprint(blueprint, owner)
    template = session.get(f"/blueprints/{found['id']}/revisions/{rev}") if rev else found
    properties = (template.get("parameters") or {}).get("properties", {})
    body = {"values": values.gather(files, settings, properties)}
    if profile:
        body["profile"] = session.profile(profile)["id"]
    path = f"/blueprints/{found['id']}" + (f"/revisions/{rev}" if rev else "") + "/render"
    rendered = session.send("POST", path, {**body, "maximize": maximize} if maximize else body)
    if maximize:
        most = rendered["maximized"][maximize]
        if most is None:
            note(f"no value of {maximize} fits the profile.")
            sys.exit(1)
        note(f"{maximize}={most}: the most that fits the profile")
        maximized = rendered["maximized"]
        rendered = session.send("POST", path, {**body, "values": {**body["values"], maximize: most}})
        rendered["maximized"] = maximized
    fits = rendered["fit"] is None or rendered["fit"]["fits"] is True
    if output == "json":
        show.as_json(rendered)
    elif fits:
        click.echo(rendered["yml"], nl=False)
    if not fits:
        show.fit(rendered["fit"], err=True)
        note("does not fit: nothing written" if output == "yaml" else "does not fit")
        sys.exit(1)


@cli.command("import")
@click.argument("source")
@click.option(
    "--format",
    "kind",
    type=click.Choice(["portainer", "openshift", "compose", "native"]),
    required=True,
    help="What SOURCE holds.",
)
@click.option("--source", "source_name", help="Where it comes from (default: the URL, or the file's name).")
@click.option("--files-from", type=click.Path(exists=True, file_okay=False), help="A Portainer catalog's checkout.")
@click.option("--raw-base", metavar="URL", help="Fetch a Portainer catalog's stack files from URL/<stackfile>.")
@click.option("--env-file", help="A Compose file's .env (a path or a URL).")
@click.option("--name", help="The name of the blueprint a Compose file makes (default: the file's name).")
@click.option("--entitlement", type=ENTITLEMENTS, help="Who may read what is made.")
@click.option("--entitled-user", multiple=True, help="A user who may read it, with CUSTOM (repeat).")
@click.option("--tag", multiple=True, help="A tag for everything made (repeat).")
@click.option("--inactive", is_flag=True, default=None, help="Mark everything made inactive.")
@click.option("--dry-run", is_flag=True, help="Report what would happen, store nothing.")
@OUTPUT
def import_(source, kind, source_name, files_from, raw_base, env_file, name, dry_run, output, **defaults):
    """Import a catalog from a file, a URL or "-" (standard input); exit 3 when a template is refused.

    A Portainer catalog's stacks are read from --files-from, else fetched from --raw-base, else
    from their GitHub repositories. Importing the same --source again updates what it made.
    """
    text = fetch.read(source)
    url = source.startswith(("http://", "https://"))
    if source_name is None and source == "-":
        raise click.BadParameter("needed when the catalog is standard input.", param_hint="--source")
    source_name = source_name or (source if url else Path(source).name)
    files = {}
    if kind == "compose":
        document = text
        files = {".env": fetch.read(env_file)} if env_file else {}
        defaults["name"] = name or (Path(source).stem if not url and source != "-" else None)
    else:
        if name:
            raise click.BadParameter("names the blueprint of a Compose import only.", param_hint="--name")
        document = _parsed(text, source)
        if kind == "portainer":
            files = fetch.stack_files(document, files_from, raw_base, warn=note)
    defaults = _import_defaults(**defaults)
    body = {"format": kind, "source": source_name, "document": document, "files": files, "defaults": defaults}
    report = connect().send("POST", "/imports", body, {"dryRun": True} if dry_run else None)
    if output == "json":
        show.as_json(report)
    else:
        show.table(report["results"], {"KEY": "key", "TITLE": "title", "OUTCOME": "outcome", "ID": "id"})
        for result in report["results"]:
            for line in result["problems"]:
                note(f"{result['key']}: {line}")
        counts = ", ".join(f"{count} {outcome}" for outcome, count in report["counts"].items() if count)
        note(("would be: " if dry_run else "") + (counts or "nothing"))
    if report["counts"].get("refused"):
        sys.exit(3)


def _parsed(text, source):
    """A catalog as JSON, else as YAML (OpenShift templates are often YAML)."""
    try:
        return json.loads(text)
    except ValueError:
        pass
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError:
        raise Misused(f"{source} is neither JSON nor YAML.") from None


def _import_defaults(entitlement, entitled_user, tag, inactive, name=None):
    given = {
        "entitlementType": entitlement and entitlement.upper(),
        "entitledUsers": list(entitled_user) or None,
        "tags": list(tag) or None,
        "inactive": inactive,
        "name": name,
    }
    return {key: value for key, value in given.items() if value is not None}


@cli.command()
@click.argument("blueprint", required=False)
@OWNER
@click.option("--format", "kind", type=click.Choice(["native", "openshift"]), default="native", show_default=True)
@list_filters
@click.option("-o", "--output", type=click.Choice(["yaml", "json"]), help="For openshift: YAML (default) or JSON.")
def export(blueprint, owner, kind, output, **filters):
    """Write the blueprints you may read (the list's filters apply) in the format imports read
    back; or, with --format openshift, one Kubernetes BLUEPRINT as an OpenShift Template."""
    session = connect()
    if kind == "native":
        if blueprint:
            raise click.BadParameter("BLUEPRINT is for --format openshift; select with --name and the filters.")
        session.stream("/exports", query(session, **filters), click.get_binary_stream("stdout"))
        return
    if not blueprint:
        raise click.BadParameter("name the Kubernetes blueprint to export.", param_hint="BLUEPRINT")
    found = session.blueprint(blueprint, owner)
    template = session.get(f"/blueprints/{found['id']}/export", {"format": "openshift"})
    if output == "json":
        show.as_json(template)
    else:
        click.echo(yaml.safe_dump(template, sort_keys=False, allow_unicode=True), nl=False)


@cli.group()
def profile():
    """Profiles: list yours, create one."""


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
            "OWNER": "owner",
        },
    )


def _cap(resource, key):
    return lambda item: show.amount(resource, (item.get("limits") or {}).get(key))


@profile.command("create")
@click.argument("name")
@click.option("--memory", help="The memory cap: 2Gi, 512Mi...")
@click.option("--cpu", help="The CPU cap: 2, 0.5, 500m...")
@click.option("--containers", help="The most containers.")
@click.option("--storage", help="The storage cap: 10Gi...")
@click.option("--default", "default", is_flag=True, help="Make it your default profile.")
@OUTPUT
def create_profile(name, memory, cpu, containers, storage, default, output):
    """Create a profile."""
    caps = {"memoryCap": memory, "cpuCap": cpu, "containerCap": containers, "storageCap": storage}
    body = {"name": name, "defaultProfile": default, **{key: value for key, value in caps.items() if value}}
    made = connect().send("POST", "/profiles", body)
    if output == "json":
        show.as_json(made)
    else:
        click.echo(f"{made['name']}: created ({made['id']}){', your default' if made['defaultProfile'] else ''}")


@cli.command()
@click.argument("shell", type=click.Choice(["bash", "zsh", "fish"]))
def completion(shell):
    """Print the shell code that completes bpctl's commands, e.g. `eval "$(bpctl completion bash)"`."""
    complete = get_completion_class(shell)(cli, {}, "bpctl", "_BPCTL_COMPLETE")
    click.echo(complete.source())


def main():
    cli(prog_name="bpctl")
