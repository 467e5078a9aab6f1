"""A source's sync, as a job: the commit at its ref fetched, the folder read as its format's
import reads it, and imported as the source (`source:<id>`) for its owner, what changed a new
revision, what is gone marked, what was changed here a conflict unless forced. One sync of a
source runs at a time: asking again while one runs answers that one, so each change is imported
once."""

from functools import partial
from pathlib import PurePosixPath
from urllib.parse import urlsplit

from flask import current_app

from app.access import addresses, sealing
from app.access.auth import caller
from app.access.users import store as users
from app.errors import Conflict, Problem
from app.imports import workflow
from app.imports.schemas import ImportReportSchema
from app.jobs import runner
from app.jobs.storage import store as jobs
from app.model.accounts import team_of
from app.sources import git, layouts
from app.sources.storage import store as sources
from app.storage.database import now
from app.storage.resource_store import MAX_ATTEMPTS
from app.teams.storage import store as teams


class SyncFailed(Problem):
    """Why a sync could not import: the job's `error`."""


def start(source, user=None, force=False):
    """The job that syncs `source`, started by `user` (None: its webhook or its schedule, for its
    owner): a new one, or the one already syncing it. Whoever starts it, it acts as the source's
    owner (`acting_as`)."""
    starter = user or {"username": source["owner"]}
    for _ in range(MAX_ATTEMPTS):
        current = sources.syncing(source["_id"])
        if current is not None and (running := jobs.alive(current)):
            return running
        job = jobs.queued("sync", starter, source["owner"], str(source["_id"]))
        if sources.take_sync(source["_id"], job["_id"], current):
            return runner.run(job, partial(_work, source["_id"], job["_id"], force), ImportReportSchema())
        jobs.discard(job["_id"])  # another request took it first: answer its job
    raise Conflict("Syncs of this source kept starting and ending: try again.")


def acting_as(source):
    """The caller a sync acts as: the source's owner with the rights it has at that moment (a
    team's source: as the team, `team:NAME`, which acts as the owner of what the team owns; a
    user's: as that user), never whoever last changed or started it. A SyncFailed, saying so,
    where the owner may no longer write (a user gone, disabled or made a viewer; a team gone)."""
    owner = source["owner"]
    team = team_of(owner)
    if team is not None:
        if teams.missing([team]):
            raise SyncFailed(f"The team {team!r} that owns the source is gone: nothing synced.")
        return {"username": owner, "role": "member", "teams": {}}
    found = users.find(owner)
    if found is None or found.get("disabled") or found["role"] == "viewer":
        why = "gone, disabled or a viewer"
        raise SyncFailed(f"The source's owner {owner!r} may no longer write ({why}): nothing synced.")
    return caller(found)


def _work(source_id, job_id, force, progress):
    last = {"state": "failed", "commit": None, "counts": None, "error": None}
    try:
        report = _synced(source_id, force, progress)
        last |= {"state": "done", "commit": report["commit"], "counts": report["counts"]}
        return report
    except Problem as exc:
        last["error"] = str(exc.detail or exc)
        raise
    except Exception:
        last["error"] = "The service failed while syncing (its log says why)."
        raise
    finally:
        sources.synced(source_id, job_id, {**last, "at": now()})


def _synced(source_id, force, progress):
    """The report of importing the source's commit, as its owner."""
    source = sources.stored(source_id)
    if source is None:
        raise SyncFailed("The source was deleted.")
    user = acting_as(source)
    try:
        remote = addresses.checked(source["url"], current_app.config)
        with git.fetched(
            remote,
            source["ref"],
            source["path"],
            sealing.unsealed(source, "token"),
            sealing.unsealed(source, "deployKey"),
        ) as tree:
            document, files, defaults = layouts.document(source["format"], tree, _named(source))
            commit = tree.commit
    except (ValueError, git.FetchFailed) as exc:
        raise SyncFailed(f"{source['url']}: {exc}") from None
    body = {
        "format": source["format"],
        "source": f"source:{source['_id']}",
        "document": document,
        "files": files,
        "defaults": {**defaults, **source["defaults"]},
    }
    how = workflow.Run(owner=source["owner"], force=force, marks_gone=True, progress=progress)
    return {**workflow.run(body, workflow.found(body), user, False, how), "commit": commit}


def _named(source):
    """The folder's own name: its path's last part, else the repository's name."""
    path = source["path"] or urlsplit(source["url"]).path.rstrip("/")
    return PurePosixPath(path).name.removesuffix(".git")
