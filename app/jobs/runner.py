"""Jobs run in a thread of the process that started them, with the app's context, their lease
renewed by a heartbeat while they run. `start` answers at once with the queued job; the work gets
a `Progress` to say how far it is, written at most twice a second, and its report is kept as the
answer of the same request would say it (dumped by the answer's schema)."""

import logging
import threading
import time
import uuid

from flask import current_app

from app.errors import Problem
from app.jobs.storage import lease
from app.jobs.storage import store as jobs

log = logging.getLogger(__name__)
PROGRESS_SECONDS = 0.5


class Progress:
    """What the work says of itself: `step(done, total)` after each unit."""

    def __init__(self, job_id, runner):
        self.job_id, self.runner, self.written = job_id, runner, 0.0

    def step(self, done, total):
        moment = time.monotonic()
        if done == total or moment - self.written >= PROGRESS_SECONDS:
            jobs.progress(self.job_id, self.runner, done, total)
            self.written = moment


def start(kind, user, owner, work, schema, source=None, id=None):
    """Queue a job of `kind` for `owner` (its id `id`, where given) and run `work(progress)` (which
    returns the report, `schema`'s) in a thread; the queued job."""
    return run(jobs.queued(kind, user, owner, source, id), work, schema)


def run(job, work, schema):
    """Run `work(progress)` for the queued `job` in a thread; the job."""
    app = current_app._get_current_object()
    arguments = (app, job["_id"], work, schema)
    threading.Thread(target=_run, args=arguments, name=f"job-{job['_id']}", daemon=True).start()
    return job


def _run(app, job_id, work, schema):
    runner = uuid.uuid4().hex
    with app.app_context():
        if not jobs.claim(job_id, runner):
            return
        stopped, beat = threading.Event(), lease().total_seconds() / 3
        threading.Thread(target=_heartbeat, args=(app, job_id, runner, stopped, beat), daemon=True).start()
        try:
            report = schema.dump(work(Progress(job_id, runner)))
        except Problem as exc:
            jobs.fail(job_id, runner, str(exc.detail or exc))
        except Exception:
            log.exception("job %s failed", job_id)
            jobs.fail(job_id, runner, f"The service failed while running it (job {job_id} in its log).")
        else:
            jobs.finish(job_id, runner, report)
        finally:
            stopped.set()


def _heartbeat(app, job_id, runner, stopped, beat):
    """Renew the lease every `beat` seconds (a third of its length) until the work stops."""
    with app.app_context():
        while not stopped.wait(beat):
            try:
                jobs.renew(job_id, runner)
            except Exception:  # the database away for a moment: the next beat tries again
                log.warning("job %s: its lease was not renewed", job_id)
