"""Each worker's schedule: every SCHEDULE_SECONDS, the sources whose sync is due are synced and
the environments whose observation is due are observed, each by the one worker that moves it on
(a conditional write), however many workers and hosts serve."""

import logging
import threading

from app.joins import observation
from app.sources import schedule as syncs

log = logging.getLogger(__name__)
SCHEDULE_SECONDS = 15


def start(app):
    """Run the schedule in a thread of this worker, for its life."""

    def loop():
        while True:
            threading.Event().wait(SCHEDULE_SECONDS)
            for due in (syncs.run_due, observation.run_due):
                try:
                    with app.app_context():
                        due()
                except Exception:  # the database away for a moment: the next round tries again
                    log.exception("schedule: %s failed this round", due.__module__)

    threading.Thread(target=loop, name="schedule", daemon=True).start()
