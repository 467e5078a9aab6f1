"""Sources: catalogs followed from git. Add one, list them with their last sync, sync one now
(its progress followed, its report shown as an import's), remove one."""

import click

from bpctl import jobs, show
from bpctl.catalogs import FORMAT_HELP, reported
from bpctl.common import FOR_TEAM, OUTPUT, cli, from_environment, given, lists, note, pass_session
from bpctl.names import named


@cli.group()
def source():
    """Catalogs followed from git: add, ls, sync, rm."""


@source.command("add")
@click.argument("url")
@click.option("--format", "kind", required=True, help=f"What the folder holds. {FORMAT_HELP}")
@click.option("--ref", help="A branch, tag or commit (default: the remote's HEAD).")
@click.option("--path", default="", help="The folder (or file) `bpctl import` would read (default: the root).")
@click.option("--interval", type=click.IntRange(60), help="Sync every this many seconds.")
@FOR_TEAM
@click.option("--token-env", metavar="VAR", help="An https token, read from the environment variable VAR.")
@click.option("--secret-env", metavar="VAR", help="The webhook's secret, read from the environment variable VAR.")
@click.option("--deploy-key", type=click.File(), help="An ssh private key file for the repository.")
@click.option("--sync", "sync_now", is_flag=True, help="Sync it at once, and show the report.")
@OUTPUT
@pass_session
def add(session, url, kind, ref, path, interval, owner, token_env, secret_env, deploy_key, sync_now, output):
    """Follow the catalog at URL (https:// or ssh://). Credentials are read from the environment
    or a file, never from the command line, and are never shown again."""
    body = given(
        url=url,
        format=kind,
        ref=ref,
        path=path,
        interval=interval,
        owner=owner,
        token=from_environment(token_env, "--token-env"),
        secret=from_environment(secret_env, "--secret-env"),
        deployKey=deploy_key.read() if deploy_key else None,
    )
    made = session.send("POST", "/sources", body)
    note(f"Source {made['id']} follows {url}; its webhook: {session.url}{made['webhook']}")
    if sync_now:
        _sync(session, made["id"], False, output)
    elif output == "json":
        show.as_json(made)


@source.command("sync")
@named("source", "source")
@click.option("--force", is_flag=True, help="Overwrite what was changed here since it was imported.")
@OUTPUT
@pass_session
def sync(session, source, force, output):
    """Import what changed at SOURCE's ref now (its id or URL); exit 3 when a template is refused
    or in conflict."""
    _sync(session, session.source(source)["id"], force, output)


@source.command("rm")
@named("source", "source")
@pass_session
def remove(session, source):
    """Stop following SOURCE (its id or URL); what it imported stays."""
    found = session.source(source)
    session.send("DELETE", f"/sources/{found['id']}")
    note(f"Source {found['id']} ({found['url']}) removed; the blueprints it made stay.")


def _sync(session, source_id, force, output):
    started = session.send("POST", f"/sources/{source_id}/sync", {"force": force})
    job = jobs.followed(session, started, "syncing")
    note(f"at commit {job['report']['commit']}")
    reported(job["report"], output)


def _last_sync(item):
    last = item["lastSync"]
    if last is None:
        return "never"
    at = last["at"][:16].replace("T", " ")
    if last["state"] != "done":
        return f"{last['state']} {at}" + (f": {last['error']}" if last.get("error") else "")
    changed = ", ".join(f"{count} {outcome}" for outcome, count in last["counts"].items() if count)
    return f"{at} at {last['commit'][:12]} ({changed or 'nothing'})"


list_sources = lists(
    source,
    "/sources",
    "List your sources (an admin: all) and their last sync.",
    {
        "ID": "id",
        "URL": "url",
        "REF": lambda item: item["ref"] or "HEAD",
        "PATH": lambda item: item["path"] or "/",
        "FORMAT": "format",
        "EVERY": lambda item: f"{item['interval']}s" if item["interval"] else None,
        "LAST SYNC": _last_sync,
    },
)
