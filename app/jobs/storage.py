"""Jobs in MongoDB. A job is `queued`, then `running` under a lease its runner renews, then `done`
(with its report) or `failed` (with why). Every write after the claim is conditional on the
runner that holds it, so a runner that lost its lease writes nothing more; a job whose lease
passed is failed by the next read, since the process running it is gone. Jobs are kept 7 days."""

from datetime import timedelta

from flask import current_app

from app.errors import NotFound
from app.model.accounts import acts_as_owner
from app.storage import database, ids
from app.storage.database import now
from app.storage.resource_store import object_id

KEPT = timedelta(days=7)


def lease():
    """How long a runner holds a job without renewing it: the service's request time limit, so
    that a job whose process died fails about as soon as a request of it would have."""
    return timedelta(seconds=current_app.config["REQUEST_TIMEOUT"])


STOPPED = "The worker running it stopped before it ended: start it again."


class Jobs:
    """The `jobs` collection."""

    def coll(self):
        return database.collection("jobs")

    def create_indexes(self):
        self.coll().create_index("createdAt", name="forget_after_7_days", expireAfterSeconds=int(KEPT.total_seconds()))

    def queued(self, kind, user, owner, source=None, id=None):
        """A new job of `kind` started by `user` for `owner` (whose members and admins read it too),
        its id `id` where one was given out before (a delivery's, written with its instance)."""
        moment = now()
        doc = {
            "_id": id or ids.new_id(moment),
            "kind": kind,
            "state": "queued",
            "startedBy": user["username"],
            "owner": owner,
            "source": source,
            "done": 0,
            "total": None,
            "report": None,
            "error": None,
            "createdAt": moment,
            "updatedAt": moment,
        }
        self.coll().insert_one(doc)
        return doc

    def running_for(self, owner):
        """Whether a job for `owner` is running under its lease, or was queued within one."""
        moment = now()
        live = (
            {"state": "running", "leaseUntil": {"$gt": moment}},
            {"state": "queued", "createdAt": {"$gt": moment - lease()}},
        )
        return any(self.coll().find_one({"owner": owner, **one}, {"_id": 1}) for one in live)

    def claim(self, job_id, runner):
        """Take the queued job for `runner`, under a lease; whether it was still queued."""
        moment = now()
        taken = {"state": "running", "runner": runner, "leaseUntil": moment + lease(), "updatedAt": moment}
        return self.coll().update_one({"_id": job_id, "state": "queued"}, {"$set": taken}).matched_count == 1

    def _held(self, job_id, runner, changes):
        """Write `changes` while `runner` holds the job (the write's result says whether it did)."""
        changes = {**changes, "updatedAt": now()}
        return self.coll().update_one({"_id": job_id, "runner": runner, "state": "running"}, {"$set": changes})

    def renew(self, job_id, runner):
        return self._held(job_id, runner, {"leaseUntil": now() + lease()}).matched_count == 1

    def progress(self, job_id, runner, done, total):
        self._held(job_id, runner, {"done": done, "total": total})

    def finish(self, job_id, runner, report):
        self._held(job_id, runner, {"state": "done", "report": report})

    def fail(self, job_id, runner, error):
        self._held(job_id, runner, {"state": "failed", "error": error})

    def alive(self, job_id):
        """The job if it is queued (and young) or running under its lease, else None."""
        doc = self.coll().find_one({"_id": job_id})
        moment = now()
        if doc is None or doc["state"] not in ("queued", "running"):
            return None
        if doc["state"] == "queued" and doc["createdAt"] < moment - lease():
            return None
        return doc if doc["state"] == "queued" or doc["leaseUntil"] >= moment else None

    def discard(self, job_id):
        """A queued job that was never started (another took its work)."""
        self.coll().delete_one({"_id": job_id, "state": "queued"})

    def readable(self, id_text, user):
        """The job, for its starter, those who act as its owner, and admins (a 404 for anyone
        else); one whose lease passed is failed first."""
        doc = self.coll().find_one({"_id": object_id(id_text, "job")})
        gone = doc is None or doc["createdAt"] < now() - KEPT
        if gone or (doc["startedBy"] != user["username"] and not acts_as_owner(user, doc["owner"])):
            raise NotFound(f"No job {id_text[:40]!r} that you may read.")
        if doc["state"] == "running" and doc["leaseUntil"] < now():
            self._held(doc["_id"], doc["runner"], {"state": "failed", "error": STOPPED})
            doc = self.coll().find_one({"_id": doc["_id"]})
        return doc


store = Jobs()
