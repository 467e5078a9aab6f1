"""Long work the service runs as a job (a catalog's import, a sync, an upgrade of many): followed
until it ends, its progress shown on a terminal's standard error."""

import sys
import time

import click

from bpctl.errors import Refused

POLL_SECONDS = 0.3


def followed(session, job, what):
    """The job once it ends (a failed one: Refused, saying why)."""
    shown = sys.stderr.isatty()
    while job["state"] in ("queued", "running"):
        if shown:
            click.echo(f"\r{what}: {job['done']} of {job['total'] or '?'}", err=True, nl=False)
        time.sleep(POLL_SECONDS)
        job = session.get(f"/jobs/{job['id']}")
    if shown:
        click.echo("\r\033[K", err=True, nl=False)
    if job["state"] == "failed":
        raise Refused(f"{what} failed: {job['error']}")
    return job
