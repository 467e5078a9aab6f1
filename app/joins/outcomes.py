"""What an instance's write answers when the database goes away in its middle: what took place,
never less or other.

A create, upgrade or delete has one decisive write (the instance inserted, moved on, deleted); the
writes before it (a reservation, holds) and after it (settling the reservation, letting holds go)
are concluded later by leases where they are lost (`Profiles.settled`, the holds' leases). So:
- the decisive write's answer lost (the connection broke after it was sent) is decided by reading
  what it decides once the database answers again: done, the request answers its success; not
  done, a 503 saying so; the database still away, a 503 saying that nobody knows yet (`Undecided`),
  which leaves everything to the leases;
- a write after the decisive one that fails leaves its work to its lease and never turns a success
  into a failure (`database.afterwards`; docs/instances.md, "Answers under
  faults")."""

import logging

from flask import current_app
from pymongo.errors import ConnectionFailure, DuplicateKeyError

from app.errors import Problem, Unavailable, Undecided
from app.storage.database import took_place

log = logging.getLogger(__name__)


def decided(write, happened, what):
    """`write()`'s answer; where the database went away before giving it, True when `happened()`
    finds that it took place once the database answers again (within a third of REQUEST_TIMEOUT),
    else a 503 saying that `what` did not take place, or that nobody knows yet."""
    try:
        return write()
    except ConnectionFailure:
        found = took_place(happened, current_app.config["REQUEST_TIMEOUT"] / 3)
    if found is None:
        log.warning("database away: whether the %s took place is not known", what)
        raise Undecided(
            f"The database went away while the {what} was written: whether it took place is not known yet. "
            "Read the instance before sending it again."
        )
    if not found:
        raise Unavailable(f"The database went away: the {what} did not take place. Send it again.")
    return True


def refused(exc):
    """Whether `exc`, raised where the decisive write is made, says that it was not made: a refusal or
    a unique index, never a lost connection or an `Undecided`."""
    return isinstance(exc, (Problem, DuplicateKeyError)) and not isinstance(exc, Undecided)
