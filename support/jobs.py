"""Waiting for a job the tests started: read at /jobs/{id} until it ends."""

import threading
import time

DEADLINE_SECONDS = 120


def finished(api, started, user="alice"):
    """The ended job that the 202 `started` answered with, read at its Location."""
    assert started.status == 202, started.json
    assert started.headers["location"].endswith(f"/jobs/{started.json['id']}")
    return ended(api, started.json["id"], user)


def ended(api, job_id, user="alice"):
    """The job `job_id` once done or failed, read until it ends; a job still running after
    DEADLINE_SECONDS fails the test."""
    deadline = time.monotonic() + DEADLINE_SECONDS
    while time.monotonic() < deadline:
        job = api.get(f"/jobs/{job_id}", user=user)
        assert job.status == 200, job.json
        if job.json["state"] in ("done", "failed"):
            return job.json
        time.sleep(0.05)
    raise AssertionError(f"the job {job_id} did not end within {DEADLINE_SECONDS} s")


def all_ended():
    """Wait for every job this process runs to end (a delete's delivery answers no job to follow)."""
    deadline = time.monotonic() + DEADLINE_SECONDS
    while any(thread.name.startswith("job-") for thread in threading.enumerate()):
        assert time.monotonic() < deadline, f"a job still ran after {DEADLINE_SECONDS} s"
        time.sleep(0.05)
