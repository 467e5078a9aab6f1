"""A source's sync, as a job: the commit at its ref fetched, the folder read as its format's
import reads it, and imported as the source (`source:<id>`) for its owner, what changed a new
revision, what is gone marked, what was changed here a conflict unless forced. One sync of a
source runs at a time: asking again while one runs answers that one, so each change is imported
once."""

from functools import partial
from pathlib import PurePosixPath
from urllib.parse import urlsplit

from flask import current_app

from app.access.auth import caller
from app.access.users import store as users
from app.errors import Conflict, Problem
from app.imports import workflow
from app.imports.schemas import ImportReportSchema
from app.jobs import runner
from app.jobs.storage import store as jobs
from app.sources import addresses, git, layouts, sealing
from app.sources.storage import store as sources
from app.storage.database import now
from app.storage.resource_store import MAX_ATTEMPTS


class SyncFailed(Problem):
    """Why a sync could not import: the job's `error`."""


def start(source, user, force=False):
    """The job that syncs `source` for `user`: a new one, or the one already syncing it."""
    for _ in range(MAX_ATTEMPTS):
        current = sources.syncing(source["_id"])
        if current is not None and (running := jobs.alive(current)):
            return running
        job = jobs.queued("sync", user, source["owner"], str(source["_id"]))
        if sources.take_sync(source["_id"], job["_id"], current):
            return runner.run(job, partial(_work, source["_id"], job["_id"], user, force), ImportReportSchema())
        jobs.discard(job["_id"])  # another request took it first: answer its job
    raise Conflict("Syncs of this source kept starting and ending: try again.")


def as_its_writer(source):
    """The user a webhook's or the schedule's sync runs as: who last wrote the source (None when
    they are gone or disabled)."""
    found = users.find(source["updatedBy"])
    return caller(found) if found and not found.get("disabled") else None


def _work(source_id, job_id, user, force, progress):
    last = {"state": "failed", "commit": None, "counts": None, "error": None}
    try:
        report = _synced(source_id, user, force, progress)
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


def _synced(source_id, user, force, progress):
    """The report of importing the source's commit."""
    source = sources.stored(source_id)
    if source is None:
        raise SyncFailed("The source was deleted.")
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
