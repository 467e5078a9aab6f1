"""One lock, over every worker of a test run, on the host's network interfaces: Chromium fails the
requests it has in flight (net::ERR_NETWORK_CHANGED) whenever a Docker Engine adds or removes a
project's network, so a browser (sharing the lock with other browsers) never runs while an
engine's test, start or stop (holding it alone) does, whichever workers run them."""

import fcntl
from contextlib import contextmanager


class HostNetwork:
    """A lock on `path` (a file in the folder the run's workers share), shared or exclusive, held
    again by the process that holds it (a page test on an engine: exclusive, then shared)."""

    def __init__(self, path):
        self.path, self.depth, self.file = path, 0, None

    @contextmanager
    def held(self, shared=False):
        if self.depth == 0:
            self.file = open(self.path, "a")  # noqa: SIM115 (open for as long as the lock is held)
            fcntl.flock(self.file, fcntl.LOCK_SH if shared else fcntl.LOCK_EX)
        self.depth += 1
        try:
            yield
        finally:
            self.depth -= 1
            if self.depth == 0:
                self.file.close()  # which releases it
