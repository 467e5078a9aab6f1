"""The job runner (app/jobs/): a job's work runs in a thread of its own to a report its answer's
schema dumps, or fails saying why without the service's internals; its progress is written at
most twice a second and always at the end; a lease held by a heartbeat, and a runner that lost it
writes nothing more."""

import threading
import time
from datetime import timedelta
from types import SimpleNamespace

import marshmallow as ma
import pytest

from app.errors import Invalid
from app.jobs import runner
from app.jobs.storage import STOPPED
from app.jobs.storage import store as jobs
from app.storage.database import now
from support.apps import make_app
from support.jobs import DEADLINE_SECONDS

ALICE = {"username": "alice"}


class Report(ma.Schema):
    imported = ma.fields.Integer()


@pytest.fixture
def app():
    made = make_app("mongomock", REQUEST_TIMEOUT=0.3)  # a lease of 0.3 s, renewed every 0.1 s
    with made.app_context():
        yield made


def ended(job):
    """The job once its thread has ended, as stored."""
    for thread in threading.enumerate():
        if thread.name == f"job-{job['_id']}":
            thread.join(DEADLINE_SECONDS)
            assert not thread.is_alive(), f"the job {job['_id']} still ran after {DEADLINE_SECONDS} s"
    return jobs.coll().find_one({"_id": job["_id"]})


def test_a_job_ends_with_the_report_its_answers_schema_dumps(app):
    def work(progress):
        progress.step(3, 3)
        return {"imported": 3, "kept": "only in the process"}

    job = ended(runner.start("import", ALICE, "alice", work, Report()))
    assert (job["state"], job["report"], job["done"], job["total"], job["error"]) == (
        "done",
        {"imported": 3},
        3,
        3,
        None,
    )


def test_a_refusal_fails_the_job_with_its_detail_and_a_crash_without_the_services_internals(app):
    def refused(progress):
        raise Invalid("The catalog holds no template.")

    def crashed(progress):
        raise RuntimeError("token=s3cr3t at /srv/app/imports.py:120")

    job = ended(runner.start("import", ALICE, "alice", refused, Report()))
    assert (job["state"], job["error"]) == ("failed", "The catalog holds no template.")
    job = ended(runner.start("import", ALICE, "alice", crashed, Report()))
    assert (job["state"], job["error"]) == (
        "failed",
        f"The service failed while running it (job {job['_id']} in its log).",
    )


def test_progress_is_written_at_most_twice_a_second_and_always_at_the_end(app, monkeypatch):
    clock, written = [100.0], []
    monkeypatch.setattr(runner, "time", SimpleNamespace(monotonic=lambda: clock[0]))  # the runner's clock alone
    monkeypatch.setattr(jobs, "progress", lambda job_id, holder, done, total: written.append(done))
    progress = runner.Progress("job", "runner")
    for done in range(1, 21):
        clock[0] += 0.125  # a unit every 125 ms
        progress.step(done, 20)
    assert written == [1, 5, 9, 13, 17, 20]


def test_a_heartbeat_holds_the_lease_while_the_work_runs(app):
    leases, release = [], threading.Event()

    def work(progress):
        deadline = time.monotonic() + 10  # about 30 beats
        while len(set(leases)) < 3 and time.monotonic() < deadline:  # two renewals seen
            leases.append(jobs.coll().find_one({"_id": job["_id"]})["leaseUntil"])
            release.wait(0.05)
        return {"imported": 0}

    job = jobs.queued("import", ALICE, "alice")
    job = ended(runner.run(job, work, Report()))
    assert len(set(leases)) == 3 and leases == sorted(leases)
    assert job["state"] == "done"


def test_a_job_is_claimed_once_and_a_runner_that_lost_its_lease_writes_nothing_more(app):
    job = jobs.queued("import", ALICE, "alice")
    assert jobs.claim(job["_id"], "first") and not jobs.claim(job["_id"], "second")
    assert jobs.renew(job["_id"], "first") and not jobs.renew(job["_id"], "second")
    jobs.coll().update_one({"_id": job["_id"]}, {"$set": {"leaseUntil": now() - timedelta(seconds=1)}})
    read = jobs.readable(str(job["_id"]), ALICE)  # its process is gone: the read fails it
    assert (read["state"], read["error"]) == ("failed", STOPPED)
    jobs.finish(job["_id"], "first", {"imported": 1})
    assert not jobs.renew(job["_id"], "first")
    assert jobs.coll().find_one({"_id": job["_id"]})["state"] == "failed"
