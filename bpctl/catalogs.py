"""import and export: catalogs in (from files, standard input or URLs, with a Portainer catalog's
stack files) and out (the native export, streamed; one blueprint as an OpenShift Template)."""

import json
import sys
from pathlib import Path

import click
import yaml

from bpctl import fetch, jobs, show
from bpctl.common import FOR_TEAM, OUTPUT, OWNER, READERS, cli, given, list_filters, note, pass_session, query, readers
from bpctl.errors import Misused

# The formats, and where a platform's repository keeps its templates, are the service's (GET /formats)
FORMAT_HELP = "An import format the service reads (an unknown one lists them)."


@cli.command("import", short_help="Import a catalog: a file, a URL or stdin.")
@click.argument("source")
@click.option(
    "--format",
    "kind",
    required=True,
    help=f"What SOURCE holds. {FORMAT_HELP} A platform's: a checkout, its templates' folder, or one template.",
)
@click.option("--source", "source_name", help="Where it comes from (default: the URL, or the file's name).")
@click.option("--files-from", type=click.Path(exists=True, file_okay=False), help="A Portainer catalog's checkout.")
@click.option("--raw-base", metavar="URL", help="Fetch a Portainer catalog's stack files from URL/<stackfile>.")
@click.option("--env-file", help="A Compose file's .env (a path or a URL).")
@click.option("--name", help="The name of the blueprint a Compose file makes (default: the file's name).")
@READERS
@click.option("--inactive", is_flag=True, default=None, help="Mark everything made inactive.")
@FOR_TEAM
@click.option("--dry-run", is_flag=True, help="Report what would happen, store nothing.")
@OUTPUT
@pass_session
def import_(
    session, source, kind, source_name, files_from, raw_base, env_file, name, owner, dry_run, output, **defaults
):
    """Import a catalog from a file, a URL or "-" (standard input); exit 3 when a template is refused.

    A Portainer catalog's stacks are read from --files-from, else fetched from --raw-base, else
    from their GitHub repositories. A Dokploy, Coolify or CapRover catalog is read from a folder:
    a checkout of the platform's repository, its templates' folder, or one template. Importing
    the same --source again updates what it made.

    What it makes is yours (--owner team:NAME: the team's) and read by its owner alone
    (entitlement OWNER) unless --entitlement says otherwise: PUBLIC for everyone, TEAM with
    --entitled-team, CUSTOM with --entitled-user. Each is then also named SOURCE:KEY.
    """
    if name and kind != "compose":
        raise click.BadParameter("names the blueprint of a Compose import only.", param_hint="--name")
    # a path is read as the service reads the format's folders; a URL or standard input is one document
    layout = {"folder": None} if fetch.is_url(source) or source == "-" else session.import_format(kind)
    if layout["folder"]:
        document, files = _platform_catalog(layout, Path(source)), {}
        if not document:
            raise Misused(f"{source} holds no {kind} template ({_where(layout)}){_looks_like(session, Path(source))}.")
        source_name = source_name or _catalog_name(layout, Path(source))
    else:
        if source_name is None and source == "-":
            raise click.BadParameter("needed when the catalog is standard input.", param_hint="--source")
        source_name = source_name or (source if fetch.is_url(source) else Path(source).name)
        document, files = _document(kind, source, env_file, files_from, raw_base)
        if kind == "compose":
            defaults["name"] = name or (Path(source).stem if not fetch.is_url(source) and source != "-" else None)
    defaults = _import_defaults(**defaults)
    body = {"format": kind, "source": source_name, "document": document, "files": files, "defaults": defaults}
    started = session.send("POST", "/imports", {**body, **given(owner=owner)}, {"dryRun": dry_run, "async": True})
    report = jobs.followed(session, started, "importing")["report"]
    note(_whose(owner or session.username, defaults, source_name))
    reported(report, output, dry_run)


def _whose(owner, defaults, source_name):
    """Whose the import's blueprints are and who reads them, in a line."""
    entitlement = defaults.get("entitlementType", "OWNER").upper()
    readers = {
        "OWNER": f"{owner} and admins alone read them (--entitlement PUBLIC shares them)",
        "PUBLIC": "everyone reads them",
        "TEAM": f"the teams {', '.join(defaults.get('entitledTeams', [])) or '(none given)'} use them",
        "CUSTOM": "the users and teams given use them",
    }[entitlement]
    return f"owner {owner}, entitlement {entitlement}: {readers}; each is also named {source_name}:KEY."


def reported(report, output, dry_run=False):
    """An import's or a sync's report: a table of its templates and what was done (JSON with
    -o json); exit 3 when a template was refused or is in conflict with a change made here."""
    if output == "json":
        show.as_json(report)
    else:
        show.table(report["results"], {"KEY": "key", "TITLE": "title", "OUTCOME": "outcome", "ID": "id", "WHY": _why})
        _problems_and_notes(report["results"])
        counts = ", ".join(f"{count} {outcome}" for outcome, count in report["counts"].items() if count)
        note(("would be: " if dry_run else "") + (counts or "nothing"))
        for result in report["results"]:
            if result["outcome"] == "conflict":
                note(f"{result['key']}: changed here since it was imported; kept. What the import would change:")
                click.echo(result["diff"], err=True, nl=False)
    if report["counts"].get("refused") or report["counts"].get("conflict"):
        sys.exit(3)


def _document(kind, source, env_file, files_from, raw_base):
    """(the document, its files) of a catalog read from a file, a URL or standard input."""
    text = fetch.read(source)
    if kind == "compose":
        return text, {".env": fetch.read(env_file)} if env_file else {}
    if kind == "kubernetes-quota":
        return text, {}  # a YAML stream: the service reads every object of it
    document = _parsed(text, source)
    files = fetch.stack_files(document, files_from, raw_base, warn=note) if kind == "portainer" else {}
    return document, files


def _problems_and_notes(results):
    """On standard error: each problem; and what was inferred or left out where one template was
    imported (a quota's dropped fields, a Compose file's), else how many have notes."""
    for result in results:
        for line in result["problems"]:
            note(f"{result['key']}: {line}")
    noted = [result for result in results if result["notes"] and result["outcome"] != "skipped"]
    if len(results) == 1:
        for line in noted[0]["notes"] if noted else []:
            note(f"note: {line}")
    elif noted:
        note(f"{len(noted)} templates have notes on what was inferred or left out: -o json shows them.")


def _platform_catalog(layout, path):
    """{key: template} of a platform's catalog at `path`: a checkout of its repository, the folder
    of its templates, or one template (a Dokploy template's folder, a Coolify or CapRover file);
    `layout` is how the service reads the platform's folder."""
    below, marker = layout["folder"], layout["marker"]
    if not path.exists():
        raise Misused(f"{path} does not exist.")
    if (path / below).is_dir():
        path = path / below
    if marker is not None:  # Dokploy: a template is a folder holding its Compose file
        folders = [path] if (path / marker).is_file() else sorted(p for p in path.iterdir() if (p / marker).is_file())
        return {
            folder.name: {name: (folder / name).read_text() for name in layout["files"] if (folder / name).is_file()}
            for folder in folders
        }
    files = [path] if path.is_file() else sorted(p for p in path.iterdir() if p.suffix in (".yml", ".yaml"))
    return {file.stem: file.read_text() for file in files}


def _where(layout):
    """Where a platform's templates are, in words: `blueprints/*/docker-compose.yml`."""
    return f"{layout['folder']}/*/{layout['marker']}" if layout["marker"] else f"{layout['folder']}/*.yml"


def _looks_like(session, path):
    """`: it is laid out as a dokploy catalog: --format dokploy` where `path` holds another
    platform's folder (its templates' folder, or a folder its marker file makes one template of);
    nothing where no layout says."""
    for layout in session.get("/formats")["imports"]:
        below, marker = layout["folder"], layout["marker"]
        if below is None or not path.is_dir():
            continue
        folders = [path, *(p for p in path.iterdir() if p.is_dir())]
        if (path / below).is_dir() or (marker and any((folder / marker).is_file() for folder in folders)):
            return f": it is laid out as a {layout['format']} catalog: --format {layout['format']}"
    return ""


def _catalog_name(layout, path):
    """The name a platform's catalog is imported under, however much of it is read: the checkout's
    folder, whether PATH is the checkout, its templates' folder or one template in it (so that
    importing one template again updates what the catalog's import made)."""
    below, marker = layout["folder"], layout["marker"]
    path = path.resolve()
    if (marker is not None and (path / marker).is_file()) or path.is_file():
        path = path.parent  # one template: its catalog's folder
    parts = Path(below).parts
    if path.parts[-len(parts) :] == parts:
        path = path.parents[len(parts) - 1]
    return path.name


def _why(result):
    """Why a template was skipped, refused or gone, in the report's own words (the first problem)."""
    if result["outcome"] in ("skipped", "gone"):
        return result["notes"][-1]
    if result["outcome"] == "conflict":
        return "changed here since it was imported: kept (the diff below)"
    return result["problems"][0] if result["outcome"] == "refused" and result["problems"] else None


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


def _import_defaults(entitlement, entitled_user, entitled_team, tag, inactive, name=None):
    return given(inactive=inactive, name=name, **readers(entitlement, entitled_user, entitled_team, tag))


@cli.command(short_help="Write an export (native, or OpenShift).")
@click.argument("blueprint", required=False)
@OWNER
@click.option("--format", "kind", type=click.Choice(["native", "openshift"]), default="native", show_default=True)
@list_filters
@click.option("-o", "--output", type=click.Choice(["yaml", "json"]), help="For openshift: YAML (default) or JSON.")
@pass_session
def export(session, blueprint, owner, kind, output, **filters):
    """Write the blueprints you may read (the list's filters apply) in the format imports read
    back; or, with --format openshift, one Kubernetes BLUEPRINT as an OpenShift Template."""
    if kind == "native":
        if blueprint:
            raise click.BadParameter("BLUEPRINT is for --format openshift; select with --name and the filters.")
        for chunk in session.stream("/exports", query(session, **filters)):
            click.echo(chunk, nl=False)
        return
    if not blueprint:
        raise click.BadParameter("name the Kubernetes blueprint to export.", param_hint="BLUEPRINT")
    found = session.blueprint(blueprint, owner)
    template = session.get(f"/blueprints/{found['id']}/export", {"format": "openshift"})
    if output == "json":
        show.as_json(template)
    else:
        click.echo(yaml.safe_dump(template, sort_keys=False, allow_unicode=True), nl=False)
