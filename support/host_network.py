"""One lock, over every worker of a test run, on what changes the host's network interfaces or
suffers from their change: Chromium fails the requests it has in flight (net::ERR_NETWORK_CHANGED)
whenever a Docker Engine adds or removes a project's network, so no browser runs while an engine
does, whichever workers run them."""

import fcntl
from contextlib import contextmanager


class HostNetwork:
    """An exclusive lock on `path` (a file in the folder the run's workers share), held again by
    the process that holds it (an engine's page test: the engine's module, then its browser)."""

    def __init__(self, path):
        self.path, self.depth, self.file = path, 0, None

    @contextmanager
    def held(self):
        if self.depth == 0:
            self.file = open(self.path, "a")  # noqa: SIM115 (open for as long as the lock is held)
            fcntl.flock(self.file, fcntl.LOCK_EX)
        self.depth += 1
        try:
            yield
        finally:
            self.depth -= 1
            if self.depth == 0:
                self.file.close()  # which releases it
