"""Waiting for a job the tests started: its Location read until it ends."""

import time

DEADLINE_SECONDS = 120


def finished(api, started, user="alice"):
    """The ended job that the 202 `started` answered with (done or failed), read at its Location
    until it ends; a job still running after DEADLINE_SECONDS fails the test."""
    assert started.status == 202, started.json
    location = started.headers["location"]
    assert location.endswith(f"/jobs/{started.json['id']}")
    path = location[location.index("/jobs/") :]
    deadline = time.monotonic() + DEADLINE_SECONDS
    while time.monotonic() < deadline:
        job = api.get(path, user=user)
        assert job.status == 200, job.json
        if job.json["state"] in ("done", "failed"):
            return job.json
        time.sleep(0.05)
    raise AssertionError(f"the job {path} did not end within {DEADLINE_SECONDS} s")
