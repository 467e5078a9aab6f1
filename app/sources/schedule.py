"""Scheduled syncs: each worker looks, every SCHEDULE_SECONDS, for sources whose next sync is
due; the one that moves a source's next sync on (a conditional write) starts it, so that a
source is synced once per interval however many workers and hosts serve."""

import logging
import threading

from app.sources import sync
from app.sources.storage import store as sources
from app.storage.database import now

log = logging.getLogger(__name__)
SCHEDULE_SECONDS = 15
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


def start(app):
    """Look for due sources in a thread of this worker, for its life."""

    def loop():
        while True:
            threading.Event().wait(SCHEDULE_SECONDS)
            try:
                with app.app_context():
                    run_due()
            except Exception:  # the database away for a moment: the next round tries again
                log.exception("scheduled syncs: this round failed")

    threading.Thread(target=loop, name="source-schedule", daemon=True).start()
