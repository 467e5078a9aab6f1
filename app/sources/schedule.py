"""Scheduled syncs: each worker looks, every round of its schedule (app/joins/schedule.py), for
sources whose next sync is due; the one that moves a source's next sync on (a conditional write) starts it, so that a
source is synced once per interval however many workers and hosts serve."""

from app.sources import sync
from app.sources.storage import store as sources
from app.storage.database import now

MOST_AT_ONCE = 20


def run_due():
    """Start the sync of each due source this worker moves on; how many it started."""
    started, moment = 0, now()
    for doc in sources.due(moment, MOST_AT_ONCE):
        if not sources.scheduled(doc, moment):
            continue
        sync.start(doc)
        started += 1
    return started
